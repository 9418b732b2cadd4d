import Cadence
import Dispatch
import Synchronization
import Testing

/// Giving up a handle on another thread is a cancel (Cadence.docc/Lifetimes.md): once the last
/// reference is gone, no callback for the work starts, on a loop running on its own thread.
@Suite(.serialized) struct ThreadedGiveUpTests {
    @Test func noCallbackStartsAfterTheLastReferenceIsGone() throws {
        let loop = try Loop()
        try loop.startThread()
        let violations = Atomic(0)
        let fires = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<400 {
                let givenUp = Atomic(false), fired = Atomic(false)
                let check: @Sendable () -> Void = {
                    fires.add(1, ordering: .relaxed)
                    fired.store(true, ordering: .relaxed)
                    if givenUp.load(ordering: .acquiring) { violations.add(1, ordering: .relaxed) }
                }
                do {
                    var handles: [AnyObject] = []
                    var timer: ScheduledTimer?
                    switch (worker + round) % 4 {
                    case 0:
                        timer = try! loop.schedule(after: 0, interval: 0.0001, in: .common) { _ in check() }
                    case 1:
                        let publisher = try! TimerPublisher(every: 0.0001, on: loop, in: .common).autoconnect()
                        handles.append(publisher.subscribe { _ in check() })
                    case 2:
                        let publisher = try! TimerPublisher(every: 0.0001, on: loop, in: .common)
                        let subscription = publisher.subscribe { _ in check() }
                        subscription.detach()  // only the connection's deinit can stop it
                        handles.append(publisher.connect())
                    default:
                        handles.append(try! Poller(every: 0.0001, tolerance: 0, on: loop) { done in
                            check()
                            done()
                        })
                    }
                    for _ in 0..<(round % 7) * 100 { _ = loop.armedTimerCount }  // let some ticks happen
                    // Every 50th round gives up only after a tick, so that callbacks race the give-ups
                    // however busy the machine (on a loaded one the spins above can all end first).
                    if round % 50 == 0 { _ = waitUntil { fired.load(ordering: .relaxed) } }
                    withExtendedLifetime((timer, handles)) {}
                }
                givenUp.store(true, ordering: .releasing)
            }
        }
        try loop.stopThread()
        #expect(loop.armedTimerCount == 0)
        try loop.close()
        #expect(violations.load(ordering: .relaxed) == 0)
        #expect(fires.load(ordering: .relaxed) > 0)
    }
}
