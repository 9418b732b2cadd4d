@testable import Cadence
import Dispatch
import Glibc
import Synchronization
import Testing

/// Once cancel returns on another thread, no callback for what it cancelled starts
/// (Cadence.docc/Semantics.md, "Threads"), on a loop running on its own thread.
@Suite(.serialized) struct ThreadedCancelTests {
    @Test func noCallbackStartsAfterCancelReturned() throws {
        let loop = try Loop()
        try loop.startThread()
        let violations = Atomic(0)
        let fires = Atomic(0)
        let shared = try TimerPublisher(every: 0.0002, on: loop, in: .common).autoconnect()
        let keepAlive = shared.subscribe { _ in }
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<600 {
                let cancelled = Atomic(false)
                let check: @Sendable (TimerTick) -> Void = { _ in
                    fires.add(1, ordering: .relaxed)
                    if cancelled.load(ordering: .acquiring) { violations.add(1, ordering: .relaxed) }
                }
                let cancellable: any Cancellable
                var subscription: TimerSubscription?  // kept until the connection is cancelled
                switch (worker + round) % 3 {
                case 0: cancellable = shared.subscribe(check)
                case 1: cancellable = (try? loop.schedule(after: 0, interval: 0.0001, in: .common, check))!
                default:
                    let publisher = try! TimerPublisher(every: 0.0001, on: loop, in: .common)
                    subscription = publisher.subscribe(check)
                    cancellable = publisher.connect()
                }
                for _ in 0..<(round % 7) * 100 { _ = loop.armedTimerCount }  // let some ticks happen
                cancellable.cancel()
                cancelled.store(true, ordering: .releasing)
                withExtendedLifetime(subscription) {}
            }
        }
        try loop.stopThread()
        keepAlive.cancel()
        try loop.close()
        #expect(violations.load(ordering: .relaxed) == 0)
        #expect(fires.load(ordering: .relaxed) > 0)
    }

    /// The same while a pass fires a burst that it took at once (more than `takeAllMinimum`,
    /// lowered here, due together: a blocked loop thread): cancels from another thread land on
    /// timers the pass has taken out of their heaps and not yet fired, and a cancel that returned
    /// true stops its timer.
    @Test func noCallbackOfATakenBurstStartsAfterCancelReturned() throws {
        let count = 4 * TimerQueues.testTakeAllMinimum
        let loop = try Loop()
        loop.queues.takeAllMinimum = TimerQueues.testTakeAllMinimum  // the burst is taken at once
        try loop.startThread()
        let cancelled = Shared([Bool](repeating: false, count: count))
        let violations = Atomic(0), fires = Atomic(0), blocking = Atomic(false), release = Atomic(false)
        // Holds the loop thread while the burst falls due, then lets it go.
        try loop.schedule(after: 0, in: .common) { _ in
            blocking.store(true, ordering: .releasing)
            while !release.load(ordering: .acquiring) { usleep(100) }
        }
        #expect(waitUntil { blocking.load(ordering: .acquiring) })
        let timers = try (0..<count).map { index in
            try loop.schedule(after: 0, interval: 100, in: index % 2 == 0 ? .default : .common) { _ in
                fires.add(1, ordering: .relaxed)
                if cancelled.update({ $0[index] }) { violations.add(1, ordering: .relaxed) }
                for _ in 0..<200 { _ = fires.load(ordering: .relaxed) }  // a pass long enough to race
            }
        }
        release.store(true, ordering: .releasing)
        #expect(waitUntil { fires.load(ordering: .relaxed) > 0 })  // the pass has begun
        var random = SplitMix(seed: 7)
        var cancels = 0
        for index in (0..<count).shuffled(using: &random) where timers[index].cancel() {
            cancelled.update { $0[index] = true }
            cancels += 1
        }
        #expect(waitUntil { loop.armedTimerCount == 0 })
        try loop.stopThread()
        try loop.close()
        #expect(violations.load(ordering: .relaxed) == 0)
        #expect(cancels == count)  // repeating: each stays armed until its cancel
    }
}
