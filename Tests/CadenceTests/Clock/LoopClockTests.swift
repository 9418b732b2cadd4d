import Cadence
import Synchronization
import Testing

/// A real loop's `Clock` (SE-0329): sleeps are one-shot timers on the loop that never end early,
/// coalesce by tolerance, and free their timer the moment their task is cancelled.
@Suite(.serialized) struct LoopClockTests {
    // The sleeping tasks below run on the loop's executor, so that they resume on the loop's
    // thread: a task on the global pool would also measure how long a loaded pool takes to run it.

    @Test func aSleepWakesAfterItsDeadlineAndWithinItsTolerancePlusSlack() async throws {
        try await withRunningLoop { loop in
            let clock = loop.clock
            let elapsed = try await Task(executorPreference: loop) { () async throws -> [Duration] in
                var elapsed: [Duration] = []
                for _ in 0..<5 {
                    let start = clock.now
                    try await clock.sleep(for: .milliseconds(50), tolerance: .milliseconds(5))
                    elapsed.append(start.duration(to: clock.now))
                }
                return elapsed
            }.value
            #expect(elapsed.count == 5)
            // Never early, on the loop's own clock; 55 ms plus scheduling slack (a loaded 2-core
            // machine may keep the loop's thread from running for a while).
            #expect(elapsed.allSatisfy { $0 >= .milliseconds(50) && $0 < .milliseconds(55) + .milliseconds(250) })
            #expect(loop.armedTimerCount == 0)
        }
    }

    @Test func sleepsWhoseWindowsOverlapEndInAtMostTwoWakeUps() async throws {
        try await withRunningLoop { loop in
            let clock = loop.clock
            let base = clock.now.advanced(by: .milliseconds(200))
            let before = loop.wakeups
            // Deadlines 10 µs apart, 20 ms of tolerance: every window holds [base + 1 ms, base + 20 ms].
            let woke = try await withTaskExecutorPreference(loop) {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<100 {
                        group.addTask {
                            let deadline = base.advanced(by: .microseconds(10 * index))
                            try await clock.sleep(until: deadline, tolerance: .milliseconds(20))
                            return clock.now >= deadline
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
            }
            #expect(woke.count == 100 && woke.allSatisfy { $0 })  // all ended, none early
            let wakeups = loop.wakeups - before
            #expect((1...2).contains(wakeups))
        }
    }

    @Test func cancellingASleepingTaskThrowsAndDisarmsItsTimerAtOnce() async throws {
        try await withRunningLoop { loop in
            let clock = loop.clock
            let task = Task { try await clock.sleep(for: .seconds(60)) }
            #expect(await eventually { loop.armedTimerCount == 1 })
            task.cancel()
            #expect(loop.armedTimerCount == 0)  // before cancel() returned, not at the deadline
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
        }
    }

    @Test func aTaskCancelledBeforeItSleepsThrowsAndArmsNothing() async throws {
        let loop = Loop.virtual()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await loop.clock.sleep(for: .seconds(1))
        }
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(loop.armedTimerCount == 0)
    }

    @Test func cancelAndFireRacingEndEachSleepOnce() async throws {
        try await withRunningLoop { loop in
            let clock = loop.clock
            let outcomes = Locked((slept: 0, cancelled: 0))
            for round in 0..<200 {
                let task = Task {
                    do {
                        try await clock.sleep(for: .microseconds(50 + round % 7 * 20))
                        outcomes.withLock { $0.slept += 1 }
                    } catch is CancellationError {
                        outcomes.withLock { $0.cancelled += 1 }
                    }
                }
                if round % 3 != 0 { task.cancel() }
                try await task.value
            }
            let (slept, cancelled) = outcomes.withLock { $0 }
            #expect(slept + cancelled == 200)
            #expect(slept >= 67)  // every third one is never cancelled
            #expect(await eventually { loop.armedTimerCount == 0 })
        }
    }

    @Test func aSleepOnAVirtualLoopIsCancelledTheSameWay() async throws {
        let loop = Loop.virtual()
        let task = Task { try await loop.clock.sleep(for: .seconds(60)) }
        #expect(await eventually { loop.armedTimerCount == 1 })
        task.cancel()
        #expect(loop.armedTimerCount == 0)
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func closingTheLoopEndsItsSleepsWithBadHandle() async throws {
        let loop = Loop.virtual()
        let task = Task { try await loop.clock.sleep(for: .seconds(60)) }
        #expect(await eventually { loop.armedTimerCount == 1 })
        try loop.close()
        let result = await task.result
        #expect(throws: CadenceError.badHandle) { try result.get() }
        await #expect(throws: CadenceError.badHandle) { try await loop.clock.sleep(for: .seconds(1)) }
    }

    @Test func aNegativeToleranceIsRefused() async throws {
        let loop = Loop.virtual()
        await #expect(throws: CadenceError.invalidArgument) {
            try await loop.clock.sleep(for: .seconds(1), tolerance: .nanoseconds(-1))
        }
        #expect(loop.armedTimerCount == 0)
    }

    @Test func theClockReadsTheLoopsTimeAtNanosecondResolution() throws {
        let loop = Loop.virtual()
        #expect(loop.clock.minimumResolution == .nanoseconds(1))
        #expect(try Loop().clock.minimumResolution == .nanoseconds(1))
        #expect(loop.clock.now.nanoseconds == 0)
        try loop.jumpClock(by: 1.5)
        #expect(loop.clock.now.nanoseconds == 1_500_000_000)
        #expect(loop.clock.now.nanoseconds == UInt64((loop.now.timeIntervalSince1970 * 1e9).rounded()))
    }
}
