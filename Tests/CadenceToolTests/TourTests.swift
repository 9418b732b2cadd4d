@testable import cadence_tool
import FoundationEssentials
import Glibc
import Testing

/// What `cadence tour` prints, without the real-time experiments (which `make demo` runs, and the
/// scenario tests in three languages).
@Suite struct TourTests {
    @Test func theIntroductionNamesTheArticle() {
        #expect(Tour.introduction.contains("the article \"Timers\" (on Foundation's Timer.publish in\nCombine)"))
        #expect(!Tour.introduction.contains("seed"))
        #expect(Usage.tour.contains("the article \"Timers\""))
    }

    @Test func theRowsAreTheCorpusTourScenarios() throws {
        let rows = try TourExperiment.all()
        #expect(rows.map(\.name) == ["1 unconnected", "2 autoconnect", "3 modes", "4 blocked thread",
                                     "5 tolerance", "6 loop not run", "7 virtual countdown", "8 poller"])
        #expect(rows.prefix(6).allSatisfy { $0.scenario.isReal })
        #expect(!rows.suffix(2).contains { $0.scenario.isReal })
    }

    @Test func everyExperimentSaysWhatItDoesAndWhy() throws {
        for experiment in try TourExperiment.all() {
            #expect(experiment.note.count > 100, "\(experiment.name)")
            #expect(!experiment.note.contains("@"), "\(experiment.name)")
        }
    }

    @Test func theCountdownRowIsInWords() throws {
        let row = try #require(try TourExperiment.all().first { $0.name == "7 virtual countdown" })
        let result = row.run()
        #expect(result.passed)
        #expect(result.figure == """
            countdown: none
            countdown: 3 at 0 ms
            countdown: 3 at 0 ms, 2 at 1000 ms,
            1 at 2000 ms, 0 at 3000 ms,
            finished at 3000 ms
            loop armed: 0
            """)
        #expect(result.note == row.note)
        #expect(TourExperiment.inWords("|@3000") == "finished at 3000 ms")
        #expect(TourExperiment.inWords("12@250") == "12 at 250 ms")
    }

    @Test func thePollerRowPasses() throws {
        let row = try #require(try TourExperiment.all().first { $0.name == "8 poller" })
        let result = row.run()
        #expect(result.passed, "\(result.figure)")
    }

    @Test func aFailedCheckIsMarkedAndFailsTheRow() throws {
        let directory = "/tmp/cadence-tour-test-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = """
            {"scenario": "wrong", "tour": "1 wrong", "note": "A one-shot due at 1 s, expected at 2 s."}
            {"do": "schedule", "name": "t", "after": 1}
            {"do": "run", "for": 3}
            {"do": "expect", "name": "t", "count": "1", "timeline": "0@2000"}

            """
        _ = FileManager.default.createFile(atPath: directory + "/wrong.jsonl", contents: Data(scenario.utf8))
        let rows = try TourExperiment.all(from: directory)
        let result = try #require(rows.first).run()
        #expect(!result.passed)
        #expect(result.figure == "t count: 1\nt: 0 at 1000 ms  ✗")
        #expect(result.expected == "1\n0 at 2000 ms")
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
