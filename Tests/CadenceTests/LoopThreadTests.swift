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
        let interval = 0.02
        // Each fire: its date, when it ran (seconds since 1970), its skipped grid points, and
        // whether it ran on another thread.
        let fires = Recorder<Fire>()
        let publisher = try TimerPublisher(every: interval, on: loop, in: .common)
        let subscription = publisher.subscribe { tick in
            fires.append(Fire(date: tick.fireDate.timeIntervalSince1970, ran: loop.now.timeIntervalSince1970,
                              skipped: tick.skipped, elsewhere: pthread_equal(pthread_self(), here) == 0))
        }
        let beforeConnect = loop.now.timeIntervalSince1970
        let connection = publisher.connect()
        let afterConnect = loop.now.timeIntervalSince1970
        let once = Recorder<Double>()
        let onceDue = loop.now.timeIntervalSince1970 + 0.03
        try loop.schedule(after: 0.03) { _ in once.append(loop.now.timeIntervalSince1970) }
        try #require(waitUntil { fires.count >= 5 && once.count == 1 })
        connection.cancel()
        let atCancel = fires.count
        // A one-shot due three grid points later: once it has run, a tick the cancel failed to
        // stop would have run before it (fire-date order), so "nothing after the cancel" is a
        // fact of the loop, not of a sleep.
        let sentinel = Recorder<Bool>()
        try loop.schedule(after: 3 * interval) { _ in sentinel.append(true) }
        #expect(waitUntil { !sentinel.isEmpty })
        #expect(fires.count <= atCancel + 1)  // at most the one already running
        let seen = fires.values
        #expect(seen.allSatisfy { $0.elsewhere })
        #expect(seen.allSatisfy { $0.ran >= $0.date - 1e-6 })  // never early
        // On the grid: each date `1 + skipped` intervals after connect for the first, after the
        // one before for the others (missed ticks skipped, lateness never carried over).
        let first = Double(1 + seen[0].skipped) * interval
        #expect(seen[0].date >= beforeConnect + first - 1e-6 && seen[0].date <= afterConnect + first + 1e-6)
        for (previous, next) in zip(seen, seen.dropFirst()) {
            #expect(abs(next.date - previous.date - Double(1 + next.skipped) * interval) < 1e-6)
        }
        #expect(once.count == 1)  // a one-shot fires once, never early
        #expect(once.values.allSatisfy { $0 >= onceDue - 1e-6 })
        #expect(throws: CadenceError.busy) { try loop.run(for: 0.01) }
        // The error names the remedy (stop the thread), whether or not the thread's run has begun.
        let closeError = #expect(throws: CadenceError.busy) { try loop.close() }
        #expect(closeError?.description.hasPrefix("Loop.close(): loop must not have a thread of its own to be closed") == true)
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
        let refused = Shared<CadenceError?>(nil)
        try loop.schedule(after: 0) { _ in
            do { try loop.stopThread() } catch let error as CadenceError { refused.value = error } catch {}
        }
        #expect(waitUntil { refused.value != nil })
        #expect(refused.value == .busy)
        try loop.stopThread()
        try loop.startThread()  // a loop can get a new thread after the old one stopped
        let fired = Shared(false)
        try loop.schedule(after: 0.01) { _ in fired.value = true }
        #expect(waitUntil { fired.value })
        try loop.stopThread()
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
        try #require(waitUntil { running.load(ordering: .sequentiallyConsistent) })
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

/// One fire of a repeating timer, as the loop thread saw it (seconds since 1970).
private struct Fire: Sendable {
    let date: Double
    let ran: Double
    let skipped: Int
    let elsewhere: Bool
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
