import Cadence
import Dispatch
import Glibc
import Testing

/// An idle virtual loop runs the jobs that come to it at once, so that a task or actor of the
/// loop awaited from outside a run completes; ``Loop/settle()`` waits for them. Every await on
/// the loop here has a timeout of its own (`withTimeout`): a hang fails the case, it does not
/// hang the suite.
@Suite struct VirtualLoopSettleTests {
    /// The example of issue 24, item 4, as written there.
    func cancelASleepingTaskAndAwaitIt() async throws -> (result: Result<Void, any Error>, armed: Int)? {
        let loop = Loop.virtual()
        let task = Task(executorPreference: loop) { try await loop.clock.sleep(for: .seconds(100)) }
        try loop.run(for: 1); task.cancel()
        let awaited = await withTimeout { await task.result }
        guard let result = awaited else { return nil }
        return (result, loop.armedTimerCount)
    }

    @Test func aTaskCancelledInItsSleepIsAwaitedFromOutsideAThousandTimesWithoutAHang() async throws {
        var hangs = 0
        var cancelled = 0
        for _ in 0..<1_000 {
            guard let (result, armed) = try await cancelASleepingTaskAndAwaitIt() else {
                hangs += 1
                continue
            }
            #expect(armed == 0)
            if case .failure(let error) = result, error is CancellationError { cancelled += 1 }
        }
        #expect(hangs == 0)
        #expect(cancelled == 1_000)
    }

    @Test func settleShowsWhatACancelledTaskDidWithoutAwaitingIt() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let log = Locked<[String]>([])
        let task = Task(executorPreference: loop) {
            do {
                try await clock.sleep(for: .seconds(100))
            } catch {
                let seconds = clock.now.nanoseconds / 1_000_000_000
                log.withLock { $0.append("\(type(of: error))@\(seconds)") }
            }
        }
        try loop.run(for: 1)
        task.cancel()
        #expect(await withTimeout { try? await loop.settle() } != nil)
        #expect(log.withLock { $0 } == ["CancellationError@1"])
        #expect(loop.now.timeIntervalSince1970 == 1)  // settling moved no clock
    }

    @Test func anActorOnAnIdleVirtualLoopAnswersACallFromOutside() async throws {
        let loop = Loop.virtual()
        let counter = LoopCounter(loop: loop)
        #expect(await withTimeout { await counter.add(2) } == 2)
        #expect(await withTimeout { await counter.total } == 2)
        #expect(loop.isRunning == false)
    }

    /// A job that came before the clock moved ran at the reading it came at, whichever thread got
    /// to it first: the advance, a run or the loop's own settling.
    @Test func aTaskStartedBeforeAnAdvanceBeginsAtTheEarlierReadingEveryTime() async throws {
        for _ in 0..<200 {
            let loop = Loop.virtual()
            let clock = loop.clock
            let task = Task(executorPreference: loop) { () async throws -> [UInt64] in
                let start = clock.now.nanoseconds
                try await clock.sleep(for: .seconds(1))
                return [start, clock.now.nanoseconds]
            }
            try loop.jumpClock(by: 5)
            try loop.run(for: 0)  // the sleep, due at 1 s, is overdue: it ends at 5 s
            let seen = await withTimeout { try? await task.value }
            #expect(seen == [0, 5_000_000_000])
        }
    }

    @Test func aTaskStartedBeforeARunRunsBeforeTheTimersDueThere() async throws {
        for _ in 0..<200 {
            let loop = Loop.virtual()
            let log = Locked<[String]>([])
            try loop.schedule(after: 0) { _ in log.withLock { $0.append("timer") } }
            let task = Task(executorPreference: loop) { log.withLock { $0.append("task") } }
            try loop.run(for: 0)
            #expect(await withTimeout { await task.value } != nil)
            #expect(log.withLock { $0 } == ["task", "timer"])
        }
    }

    @Test func settleFromAJobOfTheLoopThrowsInsteadOfWaitingForItself() async throws {
        let loop = Loop.virtual()
        let task = Task(executorPreference: loop) { () async -> CadenceError? in
            do throws(CadenceError) {
                try await loop.settle()
                return nil
            } catch {
                return error
            }
        }
        let error = await withTimeout { await task.value } ?? nil
        #expect(error == .busy && error?.call == "Loop.settle()")
        #expect(error?.message.contains("it would wait for itself") == true)
    }

    @Test func settleIsForVirtualLoopsAndOpenOnes() async throws {
        let real = try Loop()
        await #expect(throws: CadenceError.notSupported) { try await real.settle() }
        try real.close()
        let loop = Loop.virtual()
        try await loop.settle()  // nothing waiting: returns at once
        try loop.close()
        await #expect(throws: CadenceError.badHandle) { try await loop.settle() }
    }

    /// The jobs of an idle virtual loop run on a queue of the loop's own, not on the system's
    /// pool: a task of the loop completes while blocking work fills every thread of that pool
    /// (on Linux also Swift concurrency's, where a busy test suite or program can fill it).
    @Test func anIdleLoopsJobsRunWhileThePoolIsBusy() {
        let loop = Loop.virtual()
        let threads = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let gate = DispatchSemaphore(value: 0), busy = DispatchSemaphore(value: 0)
        for _ in 0...threads {
            DispatchQueue.global().async {
                busy.signal()
                gate.wait()
            }
        }
        for _ in 0..<threads { busy.wait() }  // every thread of the pool waits at the gate
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: loop) { done.signal() }
        // The pool itself adds a thread after 2 s of being blocked (libdispatch's monitor): a job
        // left to it runs then; on the loop's queue it runs in microseconds.
        let ran = done.wait(timeout: .now() + .seconds(1)) == .success
        for _ in 0...threads { gate.signal() }
        #expect(ran)
    }
}
