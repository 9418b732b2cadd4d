import Cadence
import Glibc
import Testing

/// Each operator scenario many times in a row in one process, on a fresh virtual loop each time:
/// every run records exactly the expected timeline. The count is `CADENCE_OPERATOR_RUNS`, 10,000
/// unless set; the mean real time per run is printed, not asserted (speed is for benchmarks).
@Suite(.serialized) struct OperatorRepeatTests {
    static var runs: Int {
        guard let text = getenv("CADENCE_OPERATOR_RUNS"), let runs = Int(String(cString: text)), runs > 0 else {
            return 10_000
        }
        return runs
    }

    @Test(arguments: [OperatorScenario.debounce, .throttleLatest, .gridTimer])
    func everyRunRecordsTheSameTimeline(_ scenario: OperatorScenario) async throws {
        let runs = Self.runs
        var differences = 0
        var firstDifference: [String]?
        let wall = ContinuousClock()
        let start = wall.now
        for _ in 0..<runs {
            let events = try await scenario.run()
            if events != scenario.expected {
                differences += 1
                firstDifference = firstDifference ?? events
            }
        }
        let microseconds = Int(start.duration(to: wall.now) / runs / .microseconds(1))
        print("\(scenario): \(runs) runs in a row, \(differences) differences, \(microseconds) us per run")
        #expect(differences == 0, "first difference: \(firstDifference ?? [])")
    }
}
