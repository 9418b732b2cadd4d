import CadenceScenarios
import FoundationEssentials
import Testing

/// The scenario corpus (Tests/Scenarios) on the Swift face: every scenario on a fresh loop, each
/// timeline compared exactly; the C program (Tests/C/scenarios.c) and the pytest module
/// (bindings/python/tests/test_scenarios.py) run the same files. The results go to
/// `build/scenario-results/swift.txt`, where the Python suite's parity check reads them.
@Suite struct ScenarioTests {
    @Test func everyScenarioPasses() async throws {
        let corpus = try ScenarioCorpus()
        #expect(corpus.scenarios.count >= 60)
        #expect(Set(corpus.scenarios.map(\.name)).count == corpus.scenarios.count, "names must be unique")
        var lines = ["digest " + hex(corpus.digest)]
        var failed = 0
        // Every scenario, then the real-clock ones again on a loop that a poll() host drives.
        let runs = corpus.scenarios.map { ($0, false) } + corpus.scenarios.filter(\.isReal).map { ($0, true) }
        // Real-clock scenarios take seconds: run off the pool the other tests share.
        let outcomes = await offThePool { runs.map { $0.0.run(hosted: $0.1) } }
        for ((scenario, hosted), outcome) in zip(runs, outcomes) {
            let name = scenario.name + (hosted ? " (hosted)" : "")
            lines.append((outcome.passed ? "pass " : "fail ") + name)
            if let failure = outcome.failure {
                failed += 1
                Issue.record("\(name) (\(scenario.location)): \(failure)")
            }
        }
        let results = ScenarioCorpus.resultsDirectory
        try? FileManager.default.createDirectory(atPath: results, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: results + "/swift.txt",
                                           contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        print("scenarios (Swift): \(runs.count - failed) passed, \(failed) failed")
    }

    /// A scenario ends with its file: a step at the top of a second file is refused, as the C
    /// and Python runners refuse it, not added to the first file's last scenario.
    @Test func aStepBeforeAFilesFirstScenarioIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/cadence-scenarios-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = FileManager.default.createFile(atPath: directory + "/a.jsonl", contents: Data(#"{"scenario": "a"}"#.utf8))
        _ = FileManager.default.createFile(atPath: directory + "/b.jsonl", contents: Data(#"{"do": "run", "for": 1}"#.utf8))
        do {
            _ = try ScenarioCorpus(directory: directory)
            Issue.record("a step before b.jsonl's first scenario line was read")
        } catch {
            #expect(error.description == "b.jsonl:1: a step before the file's first scenario line")
        }
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
