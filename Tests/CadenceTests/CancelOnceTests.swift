import Cadence
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// `cancel()` says whether this call stopped the work, decided atomically by the engine: two
/// threads cancelling the same countdown, poller or scheduled timer get exactly one `true` (the
/// C test `cancel_once` races the same three kinds through `cadence_cancel`).
@Suite(.serialized) struct CancelOnceTests {
    static let rounds = 10_000

    /// Both threads cancel every cancellable in the same order, so that they meet on each one;
    /// returns the rounds where the two results were not one `true` and one `false`.
    private func race(_ cancellables: [any Cancellable]) -> [Int] {
        let results = Mutex<[Int: [Bool]]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let mine = cancellables.map { $0.cancel() }  // kept apart until both are done
            results.withLock { $0[worker] = mine }
        }
        let (first, second) = results.withLock { ($0[0] ?? [], $0[1] ?? []) }
        let wrong = cancellables.indices.filter { first[$0] == second[$0] }
        #expect(first.count == cancellables.count && second.count == cancellables.count)
        #expect(cancellables.allSatisfy { $0.cancel() == false })  // and every later cancel
        return wrong
    }

    @Test func countdownCancelsOnce() throws {
        let loop = Loop.virtual()
        let deadline = loop.now.addingTimeInterval(60)
        let countdowns = try (0..<Self.rounds).map { _ in try loop.countdown(to: deadline, tick: 1).subscribe { _ in } }
        #expect(race(countdowns) == [])
        #expect(loop.armedTimerCount == 0)
    }

    @Test func pollerCancelsOnce() throws {
        let loop = Loop.virtual()
        let pollers = try (0..<Self.rounds).map { _ in try Poller(every: 1, on: loop) { $0() } }
        #expect(race(pollers) == [])
        #expect(loop.armedTimerCount == 0)
    }

    @Test func scheduledTimerCancelsOnce() throws {
        let loop = Loop.virtual()
        let fires = Atomic(0)
        let timers = try (0..<Self.rounds).map { index in
            index.isMultiple(of: 2)
                ? try loop.schedule(after: 1, interval: 1, in: .common) { _ in fires.add(1, ordering: .relaxed) }
                : try loop.schedule(after: 1, in: .common) { _ in fires.add(1, ordering: .relaxed) }
        }
        #expect(race(timers) == [])
        try loop.run(for: 10)
        #expect(fires.load(ordering: .relaxed) == 0)
    }

    @Test func everyKindReportsTheFirstCancelOnly() throws {
        let loop = Loop.virtual()
        let publisher = try TimerPublisher(every: 1, on: loop)
        let subscription = publisher.subscribe { _ in }
        let connection = publisher.connect()
        let again = publisher.connect()  // the same running timer
        let shared = try TimerPublisher(every: 1, on: loop).autoconnect()
        let autoSubscription = shared.subscribe { _ in }
        let closure = AnyCancellable {}
        #expect(subscription.cancel() == true)
        #expect(subscription.cancel() == false)
        #expect(connection.cancel() == true)
        #expect(again.cancel() == false)  // cancelled through the other connection
        #expect(autoSubscription.cancel() == true)
        #expect(autoSubscription.cancel() == false)
        #expect(closure.cancel() == true)
        #expect(closure.cancel() == false)
        let oneShot = try loop.schedule(after: 1, in: .common) { _ in }
        try loop.run(for: 2)
        #expect(oneShot.cancel() == false)  // it has fired
        #expect(loop.armedTimerCount == 0)
    }
}
