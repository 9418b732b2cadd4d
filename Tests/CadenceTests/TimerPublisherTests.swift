@testable import Cadence
import Testing

/// What connectable and autoconnect publishers are in Swift (Cadence.docc/Semantics.md,
/// "Connecting"): connections and subscriptions as handles, what they read, what dropping them
/// does. Their timelines (nothing before connect, the first tick one interval after it, shared
/// dates, a fresh grid after the last subscriber left) are the scenarios of
/// Tests/Scenarios/connect.jsonl and autoconnect.jsonl, run by `ScenarioTests`.
@Suite struct TimerPublisherTests {
    @Test func cancellingTheConnectionCancelsThePublisher() throws {
        let v = VirtualLoop()
        let fired = Shared(0)
        let publisher = try TimerPublisher(every: 0.05, on: v.loop, in: .common)
        let subscription = publisher.sink { _ in fired.value += 1 }
        #expect(!publisher.isConnected && !publisher.isCancelled && !subscription.isCancelled)
        let connection = publisher.connect()
        #expect(publisher.isConnected && !connection.isCancelled)
        try v.loop.run(for: 0.31)
        #expect(fired.value > 0)
        connection.cancel()
        #expect(publisher.isCancelled && connection.isCancelled && !publisher.isConnected)
        #expect(v.loop.armedTimerCount == 0)
        withExtendedLifetime(subscription) {}
    }

    @Test func twoConnectionsAreOneTimerAndEitherCancelsIt() throws {
        let v = VirtualLoop()
        let publisher = try TimerPublisher(every: 1, on: v.loop, in: .default)
        let subscription = publisher.subscribe { _ in }
        let first = publisher.connect()
        v.block(for: 0.5)
        let second = publisher.connect()
        #expect(v.loop.armedTimerCount == 1)
        second.cancel()
        #expect(first.isCancelled)
        #expect(v.loop.armedTimerCount == 0)
        subscription.cancel()
    }

    @Test func connectAfterCancelReturnsACancelledConnection() throws {
        let v = VirtualLoop()
        let publisher = try TimerPublisher(every: 0.1, on: v.loop, in: .default)
        let subscription = publisher.subscribe { _ in Issue.record("a cancelled publisher ticked") }
        publisher.connect().cancel()
        let again = publisher.connect()
        #expect(again.isCancelled)
        #expect(v.loop.armedTimerCount == 0)
        withExtendedLifetime(subscription) {}
    }

    @Test func releasedBeforeConnectItsSubscriptionsReadAsCancelled() throws {
        let v = VirtualLoop()
        let kept = Shared(0)
        var unconnected: TimerPublisher? = try TimerPublisher(every: 0.1, on: v.loop, in: .default)
        var connected: TimerPublisher? = try TimerPublisher(every: 0.1, on: v.loop, in: .default)
        let never = unconnected!.subscribe { _ in Issue.record("an unconnected publisher ticked") }
        let going = connected!.subscribe { _ in kept.value += 1 }
        let connection = connected!.connect()
        #expect(!never.isCancelled)
        unconnected = nil
        connected = nil
        #expect(never.isCancelled)
        #expect(!going.isCancelled)
        try v.loop.run(for: 0.35)
        #expect(kept.value > 0)  // released once connected, it goes on
        connection.cancel()
    }

    /// An autoconnect publisher is connected while a subscription lives: dropping the last
    /// `AnyCancellable` cancels it and stops the timer; a new subscriber connects again.
    @Test func autoconnectIsConnectedWhileASubscriptionLives() throws {
        let v = VirtualLoop()
        let ticks = Shared(0)
        let shared = try TimerPublisher(every: 0.1, tolerance: 0.01, on: v.loop, in: .common).autoconnect()
        #expect(!shared.isConnected)
        #expect(shared.interval == 0.1 && shared.tolerance == 0.01 && shared.mode == .common)  // its maker's
        var early: AnyCancellable? = shared.sink { _ in ticks.value += 1 }
        #expect(shared.isConnected && v.loop.armedTimerCount == 1)
        var late: AnyCancellable? = shared.sink { _ in ticks.value += 1 }
        #expect(shared.subscriberCount == 2 && v.loop.armedTimerCount == 1)
        try v.loop.run(for: 0.25)
        #expect(ticks.value > 0)
        early = nil
        #expect(shared.isConnected && shared.subscriberCount == 1)
        late = nil
        #expect(!shared.isConnected && v.loop.armedTimerCount == 0)
        let again = shared.subscribe { _ in }
        #expect(shared.isConnected && v.loop.armedTimerCount == 1)
        again.cancel()
        #expect(!shared.isConnected && v.loop.armedTimerCount == 0)
        #expect(early == nil && late == nil)
    }

    @Test func callbackCancelsItselfAndAnother() throws {
        let v = VirtualLoop()
        let selfFires = Shared(0), otherFires = Shared(0)
        let publisher = try TimerPublisher(every: 0.1, on: v.loop, in: .default)
        let selfSub = Shared<TimerSubscription?>(nil)
        let otherSub = Shared<TimerSubscription?>(nil)
        selfSub.value = publisher.subscribe { _ in
            selfFires.value += 1
            selfSub.value?.cancel()
            otherSub.value?.cancel()
        }
        otherSub.value = publisher.subscribe { _ in otherFires.value += 1 }
        let connection = publisher.connect()
        try withExtendedLifetime(connection) { try v.loop.run(for: 0.5) }
        #expect(selfFires.value == 1)
        #expect(otherFires.value == 0)  // cancelled before its turn in the same tick
        #expect(publisher.subscriberCount == 0)
    }
}
