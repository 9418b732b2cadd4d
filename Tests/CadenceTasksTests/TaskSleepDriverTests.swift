import Cadence
import CadenceTasks
import Testing

/// The test driver (`Loop.advance`) with `Task.sleep` and `ContinuousClock` sleeps, which reach a
/// virtual loop through `SchedulingExecutor`: code that names no clock of Cadence's is tested on
/// virtual time, the same on every run.
@Suite struct TaskSleepDriverTests {
    /// A task on the loop ticking with `Task.sleep` and a second one with `ContinuousClock`;
    /// returns the timeline after advancing to 600 ms and to 2 s (every sleep ends by 1 s).
    func tickingTimeline() async throws -> (middle: [String], all: [String]) {
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
        return (middle, recorder.events)
    }

    /// Each task's sleeps, in virtual milliseconds, from a timeline ("s1@250", ...).
    func sleeps(_ timeline: [String], of task: Character) -> [Int] {
        let dates = timeline.filter { $0.first == task }.compactMap { Int($0.split(separator: "@")[1]) }
        return zip(dates, [0] + dates).map { $0 - $1 }
    }

    /// Every run the same, but where the rule of `Loop+RealDeadlines.swift` cannot tell: a
    /// thread preempted before the task's clock read for about a whole number of milliseconds can
    /// make that sleep read 1 ms longer, and one preempted more than once has its sleep rounded
    /// up from the far end of the job's span, as many milliseconds longer as the preemptions
    /// took (3 ms once, in a CI run on a loaded 2-core machine); never shorter. Such runs are a
    /// few in 200; in them each sleep is its length or up to 50 ms more.
    @Test func sleepsOfTheRuntimeFollowTheVirtualClockEveryRun() async throws {
        let expected = ["s1@250", "c1@300", "s2@500", "c2@600", "s3@750", "c3@900", "s4@1000"]
        var different: [[String]] = []
        for _ in 0..<200 {
            let (middle, timeline) = try await tickingTimeline()
            // Due by 600 ms: in the run that reached it.
            #expect(middle == timeline.filter { Int($0.split(separator: "@")[1])! <= 600 })
            guard timeline != expected else { continue }
            different.append(timeline)
            #expect(timeline.count == expected.count)
            #expect(sleeps(timeline, of: "s").allSatisfy { (250...300).contains($0) }, "\(timeline)")
            #expect(sleeps(timeline, of: "c").allSatisfy { (300...350).contains($0) }, "\(timeline)")
        }
        #expect(different.count <= 10, "runs that differed: \(different)")
    }
}
