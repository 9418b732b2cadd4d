import CadenceScenarios
import FoundationEssentials
import Testing

/// The scenario corpus (Tests/Scenarios) on the Swift face: every scenario on a fresh loop, each
/// timeline compared exactly; the C program (Tests/C/scenarios.c) and the pytest module
/// (bindings/python/tests/test_scenarios.py) run the same files. The results go to
/// `build/scenario-results/swift.txt`, where the Python suite's parity check reads them.
@Suite struct ScenarioTests {
    @Test func everyScenarioPasses() throws {
        let corpus = try ScenarioCorpus()
        #expect(corpus.scenarios.count >= 60)
        #expect(Set(corpus.scenarios.map(\.name)).count == corpus.scenarios.count, "names must be unique")
        var lines = ["digest " + hex(corpus.digest)]
        var failed = 0
        for scenario in corpus.scenarios {
            let outcome = scenario.run()
            lines.append((outcome.passed ? "pass " : "fail ") + scenario.name)
            if let failure = outcome.failure {
                failed += 1
                Issue.record("\(scenario.name) (\(scenario.location)): \(failure)")
            }
        }
        let results = ScenarioCorpus.resultsDirectory
        try? FileManager.default.createDirectory(atPath: results, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: results + "/swift.txt",
                                           contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        print("scenarios (Swift): \(corpus.scenarios.count - failed) passed, \(failed) failed")
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
