import Cadence
import CadenceTasks
import Foundation
import Glibc
import Testing

/// `Task.sleep` in a task on a loop's executor is a Cadence timer (the loop as a
/// `SchedulingExecutor`): armed on the loop, never early, coalesced by tolerance, freed at once
/// when its task is cancelled.
@Suite struct TaskSleepTests {
    @Test func aSleepIsATimerOfTheVirtualLoopAndEndsAtItsDeadline() async throws {
        let loop = Loop.virtual()
        let woke = Locked<[UInt64]>([])
        let task = Task(executorPreference: loop) {
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(1500))
                let now = loop.clock.now.nanoseconds
                woke.withLock { $0.append(now) }
            }
        }
        try await loop.settle()
        #expect(loop.armedTimerCount == 1)  // the sleep is the loop's timer, not Dispatch's
        try loop.run(for: 1.499)
        #expect(woke.withLock { $0 }.isEmpty)
        try loop.run(for: 10)
        try await task.value
        #expect(woke.withLock { $0 } == [1_500_000_000, 3_000_000_000, 4_500_000_000])
        #expect(loop.armedTimerCount == 0)
    }

    @Test func aSleepOfPartOfAMillisecondOnAVirtualLoopSleepsAWholeOneNeverLess() async throws {
        let loop = Loop.virtual()
        let woke = Locked<[UInt64]>([])
        let task = Task(executorPreference: loop) {
            for duration in [Duration.microseconds(250), .microseconds(1700), .milliseconds(2)] {
                try await Task.sleep(for: duration)
                let now = loop.clock.now.nanoseconds
                woke.withLock { $0.append(now) }
            }
        }
        try loop.run(for: 10)
        try await task.value
        #expect(woke.withLock { $0 } == [1_000_000, 3_000_000, 5_000_000])
    }

    @Test func sleepsWithToleranceEndInOneWakeUp() async throws {
        let loop = Loop.virtual()
        let woke = Locked<[UInt64]>([])
        let tasks = (0..<10).map { index in
            Task(executorPreference: loop) {
                // Deadlines 1.00 s ... 1.09 s, each with 100 ms of tolerance: one wake-up at 1.09 s.
                try await Task.sleep(for: .milliseconds(1000 + 10 * index), tolerance: .milliseconds(100))
                let now = loop.clock.now.nanoseconds
                woke.withLock { $0.append(now) }
            }
        }
        try await loop.settle()
        let before = loop.wakeups
        try loop.run(for: 2)
        for task in tasks { try await task.value }
        #expect(woke.withLock { $0 } == Array(repeating: 1_090_000_000, count: 10))
        #expect(loop.wakeups - before == 1)
    }

    @Test func aCancelledSleepFreesItsTimerBeforeCancelReturns() async throws {
        let loop = Loop.virtual()
        let task = Task(executorPreference: loop) {
            try await Task.sleep(for: .seconds(3600))
        }
        try await loop.settle()
        #expect(loop.armedTimerCount == 1)
        task.cancel()
        #expect(loop.armedTimerCount == 0)
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(loop.now.timeIntervalSince1970 == 0)
    }

    @Test func onARealLoopASleepIsNeverEarly() async throws {
        let loop = try Loop()
        try loop.startThread()
        let wall = SuspendingClock()
        let lateness = try await Task(executorPreference: loop) {
            var worst = Duration.zero
            for _ in 0..<20 {
                let deadline = wall.now.advanced(by: .milliseconds(5))
                try await Task.sleep(until: deadline, tolerance: nil, clock: wall)
                let late = deadline.duration(to: wall.now)
                #expect(late >= .zero)
                worst = max(worst, late)
            }
            return worst
        }.value
        #expect(lateness < .seconds(2))  // wide: a loaded machine
        try loop.stopThread()
        try loop.close()
    }

    @Test func aSleepOnAClosedLoopEndsAtItsDeadlineOffTheLoop() async throws {
        let loop = try Loop()
        try loop.startThread()
        let wall = SuspendingClock()
        let started = Locked<SuspendingClock.Instant?>(nil)
        let task = Task(executorPreference: loop) {
            started.withLock { $0 = wall.now }
            try await Task.sleep(for: .milliseconds(50))
            return wall.now
        }
        // Closed before or after the task sleeps: either way the sleep ends at its deadline, off the loop.
        try loop.stopThread()
        try loop.close()
        let ended = try await task.value
        let start = try #require(started.withLock { $0 })
        #expect(start.duration(to: ended) >= .milliseconds(50))
    }
}


/// 100,000 tasks sleeping an hour on a loop, then cancelled: every timer is freed before
/// `cancel()` returns, and the memory they held comes back to within 10 % of its level before
/// them (Tests/CancelledSleeps, a process of its own: it says what is measured and why).
@Suite struct ManyCancelledSleepsTests {
    @Test func aHundredThousandCancelledSleepsLeaveNoTimerAndGiveTheirMemoryBack() throws {
        let (status, printed) = try runProgram("CancelledSleeps")
        let lines = printed.split(separator: "\n", omittingEmptySubsequences: false)
        lines.filter { $0.hasPrefix("figures: ") }.forEach { print($0) }
        let output = lines.filter { !$0.hasPrefix("figures: ") }.joined(separator: "\n")
        #expect(status == 0)
        #expect(output == """
            armed with 100,000 asleep: 100000
            armed after cancel() returned: 0
            memory held within 10 % of before: true
            virtual clock moved: false

            """)
    }
}

/// How a virtual loop reads a real clock's deadline (`Loop.sleepLength`): the runtime reads the
/// clock in the task a moment before it hands the sleep over, and the thread may be preempted on
/// either side of that read.
@Suite struct RealDeadlineTests {
    let ms: Int64 = 1_000_000
    let us: Int64 = 1_000

    /// A job that starts, reads the clock `before` later, is preempted `preempted` (before or
    /// after its read) and hands over `after` after its read: the sleep the loop reads for `sleep`.
    func read(_ sleep: Int64, before: Int64 = 3_000, after: Int64 = 5_000,
              preempted: Int64 = 0, beforeTheRead: Bool = false) -> Int64 {
        let toHandOver = after + (beforeTheRead ? 0 : preempted)
        return Loop.sleepLength(low: sleep - toHandOver, span: before + after + preempted,
                                running: before + after)
    }

    @Test func aWholeMillisecondIsExactWhereverThePreemptionFell() {
        #expect(read(250 * ms) == 250 * ms)
        #expect(read(250 * ms, preempted: 1_100 * us) == 250 * ms)  // the hand-over was late
        #expect(read(250 * ms, preempted: 2_300 * us, beforeTheRead: true) == 250 * ms)
        #expect(read(250 * ms, before: 40 * us, after: 900 * us) == 250 * ms)  // a slow job, no preemption
        #expect(read(0) == 0)  // `.zero`, and a deadline already passed
        #expect(read(-2 * ms) == 0)
    }

    @Test func anyOtherSleepIsRoundedUpNeverShortened() {
        #expect(read(1_700 * us) == 2 * ms)
        #expect(read(250 * us) == 1 * ms)
        #expect(read(1_700 * us, preempted: 1_600 * us) == 2 * ms)
        #expect(read(250 * us, preempted: 3 * ms, beforeTheRead: true) == 4 * ms)  // late, not early
        // A preemption of whole milliseconds before the read shows a whole one at both ends: the
        // later is taken, late rather than early.
        #expect(read(250 * ms, preempted: 2 * ms, beforeTheRead: true) == 252 * ms)
    }

    @Test func aDeadlineBeyondAnyClockSaturates() {
        #expect(Loop.sleepLength(low: .max, span: 5 * us, running: 5 * us) == .max)
        #expect(Loop.sleepLength(low: 10 * ms, span: .max, running: .max) == .max)
    }
}
