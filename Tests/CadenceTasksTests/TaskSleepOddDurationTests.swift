import Cadence
import CadenceTasks
import Testing

/// `Task.sleep` of odd durations on a virtual loop. The runtime hands the loop a deadline of the
/// real clock, read in the task a moment before, not the duration: the loop reads the duration
/// back from the span that read may lie in (`Loop.sleepLength`, Loop+RealDeadlines.swift).
@Suite struct TaskSleepOddDurationTests {
    let ms: Int64 = 1_000_000
    let us: Int64 = 1_000

    /// The loop's reading of a sleep of `sleep` ns by a job that ran `before` until its clock
    /// read and handed over `after` later, preempted for `preempted` before or after the read.
    func read(_ sleep: Int64, before: Int64 = 3_000, after: Int64 = 500, preempted: Int64 = 0,
              beforeTheRead: Bool = false) -> Int64 {
        let toHandOver = after + (beforeTheRead ? 0 : preempted)
        return Loop.sleepLength(low: sleep - toHandOver, span: before + after + preempted, running: before + after)
    }

    @Test func zeroNegativeAndPartsOfAMillisecondAreNeverShortened() {
        #expect(read(0) == 0)
        #expect(read(-5) == 0)
        #expect(read(-2 * ms, preempted: 3 * ms, beforeTheRead: true) == 1 * ms)  // late, never early
        #expect(read(999) == 1 * ms)
        #expect(read(999_900) == 1 * ms)
        #expect(read(1_999_999) == 2 * ms)
        #expect(read(1_001 * us) == 2 * ms)  // 1 µs past: more than the hand-over (500 ns)
        #expect(read(2_300 * us, preempted: 700 * us) == 3 * ms)
        #expect(read(.max - 1) == .max)
        #expect(read(.max / 2, preempted: .max / 2, beforeTheRead: true) == .max)
    }

    /// Any readings at all, however absurd, give a length in 0...Int64.max without trapping.
    @Test func extremeReadingsNeitherTrapNorGoNegative() {
        let values: [Int64] = [.min, .min + 1, -ms, -1, 0, 1, ms - 1, ms, ms + 1, .max / 2, .max - ms, .max - 1, .max]
        for low in values {
            for span in values {
                for running in values {
                    let length = Loop.sleepLength(low: low, span: span, running: running)
                    #expect(length >= 0 && length >= min(low, .max), "low \(low) span \(span) running \(running)")
                }
            }
        }
    }

    /// The limit of the reading, which no rule can pass: what a job hands over for a sleep just
    /// past a whole millisecond (by less than the time from its clock read to the hand-over, or by
    /// about a preemption after the read) is also what a job hands over for the whole millisecond,
    /// which the loop must keep exact. Such a sleep is read as that millisecond: early by what it
    /// is past it. A sleep on `Loop.clock` is exact at any resolution.
    @Test func aSleepJustPastAWholeMillisecondIsReadAsThatMillisecond() {
        #expect(read(1) == 0)
        #expect(read(1 * ms + 1) == 1 * ms)
        #expect(read(250 * ms + 400) == 250 * ms)
        // Preempted 100 µs after the read, 1.1 ms hands over what 1 ms preempted before it does.
        #expect(read(1_100 * us, before: 3 * us, preempted: 100 * us)
                == read(1 * ms, before: 3 * us, preempted: 100 * us, beforeTheRead: true))
        #expect(read(1_100 * us, before: 3 * us, preempted: 100 * us) == 1 * ms)
    }

    /// On the runtime's own path: sleeps of zero, negative and far-off durations.
    @Test func zeroNegativeAndFarOffSleepsOnAVirtualLoop() async throws {
        let loop = Loop.virtual()
        let slept = Locked<[UInt64]>([])
        let far = Task(executorPreference: loop) {
            try await Task.sleep(for: .seconds(Int64.max / 4))  // beyond any clock: armed at its end
        }
        let task = Task(executorPreference: loop) {
            for duration in [Duration.zero, .nanoseconds(-5), .seconds(-3600)] {
                let before = loop.clock.now.nanoseconds
                try await Task.sleep(for: duration)
                slept.withLock { $0.append(loop.clock.now.nanoseconds - before) }
            }
        }
        try loop.run(for: 3600)
        try await task.value
        #expect(slept.withLock { $0 } == [0, 0, 0])
        #expect(loop.armedTimerCount == 1)  // the far one: nothing fired it
        far.cancel()
        #expect(loop.armedTimerCount == 0)
        await #expect(throws: CancellationError.self) { try await far.value }
    }
}
