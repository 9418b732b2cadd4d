import Cadence
import Glibc
import Synchronization
import Testing

/// A loop on a thread of its own (Cadence.docc/Semantics.md, "Passes and callbacks", "Threads"), on the real clock.
@Suite(.serialized) struct LoopThreadTests {
    @Test func timersScheduledFromHereFireOnTheLoopThread() throws {
        let loop = try Loop()
        try loop.startThread()
        #expect(loop.hasThread)
        let here = pthread_self()
        let fires = Mutex<[Bool]>([])  // whether each fire ran on another thread
        let publisher = try TimerPublisher(every: 0.02, on: loop, in: .common)
        let subscription = publisher.subscribe { _ in fires.withLock { $0.append(pthread_equal(pthread_self(), here) == 0) } }
        let connection = publisher.connect()
        let once = Mutex(0)
        try loop.schedule(after: 0.03) { _ in once.withLock { $0 += 1 } }
        usleep(200_000)
        connection.cancel()
        let atCancel = fires.withLock { $0.count }
        usleep(60_000)
        #expect(fires.withLock { $0.count } <= atCancel + 1)  // at most the one already running
        #expect((5...11).contains(atCancel))
        #expect(fires.withLock { $0.allSatisfy { $0 } })
        #expect(once.withLock { $0 } == 1)
        #expect(throws: CadenceError.busy) { try loop.run(for: 0.01) }
        #expect(throws: CadenceError.busy) { try loop.close() }
        #expect(throws: CadenceError.busy) { try loop.startThread() }
        try loop.stopThread()
        #expect(!loop.hasThread && !loop.isRunning)
        try loop.stopThread()  // no thread: nothing to do
        subscription.cancel()
        try loop.close()
    }

    @Test func stoppingFromTheLoopThreadIsRefusedAndStartingAgainWorks() throws {
        let loop = try Loop()
        try loop.startThread()
        let refused = Mutex<CadenceError?>(nil)
        try loop.schedule(after: 0) { _ in
            do { try loop.stopThread() } catch let error as CadenceError { refused.withLock { $0 = error } } catch {}
        }
        usleep(50_000)
        #expect(refused.withLock { $0 } == .busy)
        try loop.stopThread()
        try loop.startThread()  // a loop can get a new thread after the old one stopped
        let fired = Mutex(false)
        try loop.schedule(after: 0.01) { _ in fired.withLock { $0 = true } }
        usleep(80_000)
        try loop.stopThread()
        #expect(fired.withLock { $0 })
        try loop.close()
    }

    @Test func twoStopThreadCallsAtOnceBothWaitForTheRunningCallback() throws {
        let loop = try Loop()
        let running = Atomic(false)
        let finished = Atomic(false)
        try loop.schedule(after: 0) { _ in
            running.store(true, ordering: .sequentiallyConsistent)
            usleep(300_000)  // a long callback, for the two stops to arrive while it runs
            finished.store(true, ordering: .sequentiallyConsistent)
        }
        try loop.startThread()
        while !running.load(ordering: .sequentiallyConsistent) { usleep(1_000) }
        // A class holds the results: a Mutex captured by the two threads' closures is reached
        // through its capture box, which ThreadSanitizer reports as a race on the box.
        let sawFinished = Shared<[Bool]>([])
        let stoppers = (0..<2).map { _ in
            PlainThread {
                try? loop.stopThread()
                let done = finished.load(ordering: .sequentiallyConsistent)
                sawFinished.update { $0.append(done) }
            }
        }
        stoppers.forEach { $0.join() }
        #expect(sawFinished.value == [true, true])
        #expect(!loop.hasThread)
        try loop.close()  // no callback runs, so no busy
    }

    @Test func badModes() throws {
        let loop = try Loop()
        #expect(throws: CadenceError.invalidArgument) { try loop.startThread(mode: .common) }
        #expect(throws: CadenceError.unknownMode) { try loop.startThread(mode: RunLoopMode("nope")) }
        #expect(!loop.hasThread)
        try loop.close()
        #expect(throws: CadenceError.badHandle) { try loop.startThread() }
    }
}

/// A thread of its own (not a dispatch worker, which a pool may run one after another).
// Unchecked: `thread` is written once, by the initializer, before anyone joins it.
private final class PlainThread: @unchecked Sendable {
    private var thread = pthread_t()

    init(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        precondition(status == 0, "pthread_create failed")
    }

    func join() { pthread_join(thread, nil) }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
