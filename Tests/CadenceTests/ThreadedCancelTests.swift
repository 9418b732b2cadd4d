import Cadence
import Dispatch
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
}
