@testable import Cadence
import Testing

/// Connectable and autoconnect semantics (Cadence.docc/Semantics.md, "Connecting"), in virtual time.
@Suite struct TimerPublisherTests {
    @Test func nothingBeforeConnectAndNothingAfterCancel() throws {
        let v = VirtualLoop()
        let fired = Recorder<Int>()
        let publisher = try TimerPublisher(every: 0.05, on: v.loop, in: .common)
        let subscription = publisher.sink { fired.append(Int(($0.timeIntervalSince1970 * 1000).rounded())) }
        try v.loop.run(for: 0.3)
        #expect(fired.isEmpty)
        #expect(v.loop.armedTimerCount == 0)
        let connection = publisher.connect()
        try v.loop.run(for: 0.31)
        #expect(fired.values == [350, 400, 450, 500, 550, 600])
        connection.cancel()
        #expect(publisher.isCancelled && connection.isCancelled)
        try v.loop.run(for: 0.2)
        #expect(fired.count == 6)
        #expect(v.loop.armedTimerCount == 0)
        withExtendedLifetime(subscription) {}
    }

    @Test func connectTwiceSharesOneTimer() throws {
        let v = VirtualLoop()
        let fired = Shared(0)
        let publisher = try TimerPublisher(every: 1, on: v.loop, in: .default)
        let subscription = publisher.subscribe { _ in fired.value += 1 }
        let first = publisher.connect()
        v.block(for: 0.5)
        let second = publisher.connect()
        #expect(v.loop.armedTimerCount == 1)
        try v.loop.run(for: 2.6)
        #expect(fired.value == 3)  // at 1, 2, 3: the first connection's grid
        second.cancel()
        #expect(first.isCancelled)
        subscription.cancel()
    }

    @Test func connectAfterCancelStartsNothing() throws {
        let v = VirtualLoop()
        let fired = Shared(0)
        let publisher = try TimerPublisher(every: 0.1, on: v.loop, in: .default)
        let subscription = publisher.subscribe { _ in fired.value += 1 }
        publisher.connect().cancel()
        let again = publisher.connect()
        #expect(again.isCancelled)
        #expect(v.loop.armedTimerCount == 0)
        try v.loop.run(for: 1)
        #expect(fired.value == 0)
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
        #expect(kept.value == 3)
        connection.cancel()
    }

    @Test func subscribersShareFireDatesAndCancelAlone() throws {
        let v = VirtualLoop()
        let a = Recorder<Int>(), b = Recorder<Int>()
        let publisher = try TimerPublisher(every: 0.1, on: v.loop, in: .default)
        let subA = publisher.subscribe { a.append($0.milliseconds) }
        let connection = publisher.connect()
        try v.loop.run(for: 0.25)
        let subB = publisher.subscribe { b.append($0.milliseconds) }
        try v.loop.run(for: 0.2)
        subA.cancel()
        try v.loop.run(for: 0.2)
        #expect(a.values == [100, 200, 300, 400])
        #expect(b.values == [300, 400, 500, 600])
        #expect(publisher.isConnected)
        subB.cancel()
        connection.cancel()
    }

    @Test func autoconnectStartsStopsAndRestartsOnAFreshGrid() throws {
        let v = VirtualLoop()
        let early = Recorder<Int>(), late = Recorder<Int>(), restarted = Recorder<Int>()
        let shared = try TimerPublisher(every: 0.1, tolerance: 0.01, on: v.loop, in: .common).autoconnect()
        #expect(!shared.isConnected)
        #expect(shared.interval == 0.1 && shared.tolerance == 0.01 && shared.mode == .common)  // its maker's
        var earlyHandle: AnyCancellable? = shared.sink { early.append(Int(($0.timeIntervalSince1970 * 1000).rounded())) }
        try v.loop.run(for: 0.25)
        var lateHandle: AnyCancellable? = shared.sink { late.append(Int(($0.timeIntervalSince1970 * 1000).rounded())) }
        try v.loop.run(for: 0.3)
        #expect(early.values == [100, 200, 300, 400, 500])
        #expect(late.values == [300, 400, 500])
        earlyHandle = nil
        lateHandle = nil
        #expect(!shared.isConnected && v.loop.armedTimerCount == 0)
        try v.loop.run(for: 0.33)
        let handle = shared.subscribe { restarted.append($0.milliseconds) }
        try v.loop.run(for: 0.35)
        #expect(restarted.values == [980, 1080, 1180])  // a fresh grid from the new first subscriber
        handle.cancel()
        #expect(earlyHandle == nil && lateHandle == nil)
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
