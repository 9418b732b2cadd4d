@testable import cadence_tool
import Testing

/// What `cadence tour` prints, without the real-time experiments (which `make demo` runs).
@Suite struct TourTests {
    @Test func theIntroductionNamesTheArticle() {
        #expect(Tour.introduction.contains("the article \"Timers\" (on Foundation's Timer.publish in\nCombine)"))
        #expect(!Tour.introduction.contains("seed"))
        #expect(Usage.tour.contains("the article \"Timers\""))
    }

    @Test func everyExperimentSaysWhatItDoesAndWhy() {
        for experiment in TourExperiment.allCases {
            #expect(experiment.note.count > 100, "\(experiment.name)")
            #expect(!experiment.note.contains("@"), "\(experiment.name)")
        }
    }

    @Test func theCountdownRowIsInWords() throws {
        let result = try TourExperiment.virtualCountdown.run()
        #expect(result.passed)
        #expect(result.figure == """
            3 at 0 ms, 2 at 1000 ms,
            1 at 2000 ms, 0 at 3000 ms,
            finished at 3000 ms
            0 timers left after the finish
            """)
        #expect(result.note == TourExperiment.virtualCountdown.note)
        #expect(TourExperiment.inWords("|@3000") == "finished at 3000 ms")
        #expect(TourExperiment.inWords("12@250") == "12 at 250 ms")
    }

    @Test func thePollerRowPasses() throws {
        let result = try TourExperiment.poller.run()
        #expect(result.passed, "\(result.figure)")
    }

    @Test func aNoteIsWrappedUnderItsRow() {
        var table = Table(header: ["a", "b"])
        table.rows = [["1", "x"], ["2", "y"]]
        table.notes = [0: String(repeating: "word ", count: 20), 1: "last"]
        let line = "  " + Array(repeating: "word", count: 15).joined(separator: " ")
        #expect(table.render() == """
            a  b
            -  -
            1  x
            \(line)
              word word word word word

            2  y
              last

            """)
    }
}
