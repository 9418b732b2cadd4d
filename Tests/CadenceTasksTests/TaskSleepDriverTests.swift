import Cadence
import CadenceTasks
import Testing

/// The test driver (`Loop.advance`) with `Task.sleep` and `ContinuousClock` sleeps, which reach a
/// virtual loop through `SchedulingExecutor`: code that names no clock of Cadence's is tested on
/// virtual time, the same on every run.
@Suite struct TaskSleepDriverTests {
    /// A task on the loop ticking with `Task.sleep` and a second one with `ContinuousClock`;
    /// returns the timeline after advancing to 2 s (every sleep ends by 1 s).
    func tickingTimeline() async throws -> [String] {
        let loop = Loop.virtual()
        defer { try? loop.close() }
        let start = loop.clock.now
        let recorder = TimelineRecorder<String>(clock: loop.clock)
        let sleeper = Task(executorPreference: loop) {
            for index in 1...4 {
                try await Task.sleep(for: .milliseconds(250))
                recorder.record("s\(index)")
            }
        }
        let continuous = Task(executorPreference: loop) {
            for index in 1...3 {
                try await ContinuousClock().sleep(for: .milliseconds(300))
                recorder.record("c\(index)")
            }
        }
        try await loop.advance(to: start + .milliseconds(600))
        let middle = recorder.events
        // Past the last sleep's end, so that one read late shows in the timeline instead of
        // leaving its task asleep, and this test waiting for it, for ever.
        try await loop.advance(to: start + .seconds(2))
        try await sleeper.value
        try await continuous.value
        #expect(middle == ["s1@250", "c1@300", "s2@500", "c2@600"])  // due at 600: in the run that reached it
        return recorder.events
    }

    @Test func sleepsOfTheRuntimeFollowTheVirtualClockEveryRun() async throws {
        let expected = ["s1@250", "c1@300", "s2@500", "c2@600", "s3@750", "c3@900", "s4@1000"]
        var different: [[String]] = []
        for _ in 0..<200 {
            let timeline = try await tickingTimeline()
            if timeline != expected { different.append(timeline) }
        }
        #expect(different.isEmpty, "runs that differed: \(different)")
    }
}
