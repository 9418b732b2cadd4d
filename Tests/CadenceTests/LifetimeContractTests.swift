@testable import Cadence
import FoundationEssentials
import Testing

/// The lifetime contract (Cadence.docc/Lifetimes.md), one test per cell of its table, on a
/// virtual loop with exact fire dates. The C tests (Tests/C/lifetime_contract.c) and the Python
/// tests run the same cases under the same names. "Give up" is the last reference going away (an
/// optional set to nil), never a cancel call.
@Suite struct LifetimeContractTests {
    /// Fire dates in virtual seconds.
    final class Fires: Sendable {
        let dates = Recorder<Double>()
        func record(_ tick: TimerTick) { dates.append(tick.fireDate.timeIntervalSince1970) }
        func record(_ date: Date) { dates.append(date.timeIntervalSince1970) }
        var values: [Double] { dates.values }
    }

    // MARK: One-shot scheduled timer

    @Test("one_shot_cancel") func oneShotCancel() throws {
        let v = VirtualLoop(), fires = Fires()
        let timer = try v.loop.schedule(after: 1) { fires.record($0) }
        #expect(timer.cancel() == true)
        #expect(timer.cancel() == false)
        try v.loop.run(for: 2)
        #expect(fires.values == [] && v.loop.armedTimerCount == 0)
    }

    @Test("one_shot_give_up") func oneShotGiveUp() throws {
        let v = VirtualLoop(), fires = Fires()
        var timer: ScheduledTimer? = try v.loop.schedule(after: 1) { fires.record($0) }
        timer = nil
        #expect(timer == nil && v.loop.armedTimerCount == 1)
        try v.loop.run(for: 2)
        #expect(fires.values == [1.0] && v.loop.armedTimerCount == 0)
    }

    /// A handle is two words whatever its kind: the owner a repeating timer carries takes the
    /// place of the loop reference, so a one-shot costs no more than it did.
    @Test func aScheduledTimerIsTwoWords() {
        #expect(MemoryLayout<ScheduledTimer>.size == 16 && MemoryLayout<ScheduledTimer>.stride == 16)
    }

    @Test("one_shot_detach") func oneShotDetach() throws {
        let v = VirtualLoop(), fires = Fires()
        var timer: ScheduledTimer? = try v.loop.schedule(after: 1) { fires.record($0) }
        timer?.detach()
        timer = nil
        try v.loop.run(for: 2)
        #expect(fires.values == [1.0] && v.loop.armedTimerCount == 0)
    }

    // MARK: Repeating scheduled timer

    @Test("repeating_cancel") func repeatingCancel() throws {
        let v = VirtualLoop(), fires = Fires()
        let timer = try v.loop.schedule(after: 1, interval: 1) { fires.record($0) }
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2])
        #expect(timer.cancel() == true)
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2] && v.loop.armedTimerCount == 0)
    }

    @Test("repeating_give_up") func repeatingGiveUp() throws {
        let v = VirtualLoop(), fires = Fires()
        var timer: ScheduledTimer? = try v.loop.schedule(after: 1, interval: 1) { fires.record($0) }
        var copy = timer  // copies share the timer: only the last one gone stops it
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2])
        timer = nil
        #expect(v.loop.armedTimerCount == 1 && copy?.isCancelled == false)
        copy = nil
        #expect(v.loop.armedTimerCount == 0)
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2] && timer == nil && copy == nil)
    }

    @Test("repeating_detach") func repeatingDetach() throws {
        let v = VirtualLoop(), fires = Fires()
        var timer: ScheduledTimer? = try v.loop.schedule(after: 1, interval: 1) { fires.record($0) }
        timer?.detach()
        timer?.detach()  // a second detach is a no-op
        try v.loop.run(for: 2.5)
        timer = nil
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2, 3, 4, 5] && v.loop.armedTimerCount == 1 && timer == nil)
    }

    // MARK: Publisher and connection

    @Test("publisher_give_up") func publisherGiveUp() throws {
        let v = VirtualLoop(), fires = Fires()
        var publisher: TimerPublisher? = try TimerPublisher(every: 1, on: v.loop)
        let subscription = try #require(publisher).subscribe { fires.record($0) }
        var connection: TimerConnection? = publisher?.connect()
        publisher = nil
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2] && !subscription.isCancelled)
        connection = nil
        #expect(v.loop.armedTimerCount == 0 && subscription.isCancelled && connection == nil)
    }

    @Test("connection_cancel") func connectionCancel() throws {
        let v = VirtualLoop(), fires = Fires()
        let publisher = try TimerPublisher(every: 1, on: v.loop)
        let subscription = publisher.subscribe { fires.record($0) }
        let connection = publisher.connect()
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2])
        #expect(connection.cancel() == true)
        // Nothing can make it tick again, though the publisher and the connection are held.
        #expect(subscription.isCancelled && !subscription.cancel())
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2] && v.loop.armedTimerCount == 0)
    }

    @Test("connection_give_up") func connectionGiveUp() throws {
        let v = VirtualLoop(), fires = Fires()
        let publisher = try TimerPublisher(every: 1, on: v.loop)
        let subscription = publisher.subscribe { fires.record($0) }
        var first: TimerConnection? = publisher.connect()
        var second: TimerConnection? = publisher.connect()
        #expect(first === second)  // every connect() names the same connection
        try v.loop.run(for: 2.5)
        first = nil
        try v.loop.run(for: 1)
        #expect(fires.values == [1, 2, 3] && v.loop.armedTimerCount == 1)
        second = nil
        #expect(v.loop.armedTimerCount == 0 && publisher.isCancelled)
        try v.loop.run(for: 1.5)
        #expect(fires.values == [1, 2, 3] && v.loop.armedTimerCount == 0 && first == nil && second == nil)
        withExtendedLifetime(subscription) {}
    }

    @Test("connection_detach") func connectionDetach() throws {
        let v = VirtualLoop(), fires = Fires()
        let publisher = try TimerPublisher(every: 1, on: v.loop)
        let subscription = publisher.subscribe { fires.record($0) }
        var connection: TimerConnection? = publisher.connect()
        connection?.detach()
        try v.loop.run(for: 2.5)
        connection = nil
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2, 3, 4, 5] && v.loop.armedTimerCount == 1 && connection == nil)
        // The connection is still the publisher's: a new handle to it cancels it.
        #expect(publisher.connect().cancel() == true && v.loop.armedTimerCount == 0)
        withExtendedLifetime(subscription) {}
    }

    // MARK: Subscription

    /// An autoconnect publisher every second with one subscriber, which `end` ends at 2.5 s.
    func subscriptionCase(_ end: (inout TimerSubscription?) -> Void) throws -> (fires: [Double], armed: Int) {
        let v = VirtualLoop(), fires = Fires()
        let publisher = try TimerPublisher(every: 1, on: v.loop).autoconnect()
        var subscription: TimerSubscription? = publisher.subscribe { fires.record($0) }
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2])
        end(&subscription)
        try v.loop.run(for: 2.5)
        return (fires.values, v.loop.armedTimerCount)
    }

    @Test("subscription_cancel") func subscriptionCancel() throws {
        let result = try subscriptionCase { subscription in #expect(subscription?.cancel() == true) }
        #expect(result.fires == [1, 2] && result.armed == 0)
    }

    @Test("subscription_give_up") func subscriptionGiveUp() throws {
        let result = try subscriptionCase { $0 = nil }
        #expect(result.fires == [1, 2] && result.armed == 0)
    }

    @Test("subscription_detach") func subscriptionDetach() throws {
        let result = try subscriptionCase { subscription in
            subscription?.detach()
            subscription = nil
        }
        #expect(result.fires == [1, 2, 3, 4, 5] && result.armed == 1)
    }

    /// The same cells for `sink`, whose handle is an ``AnyCancellable``.
    @Test(arguments: ["cancel", "give_up", "detach"])
    func sinkFollowsTheSubscriptionRows(ending: String) throws {
        let v = VirtualLoop(), fires = Fires()
        let publisher = try TimerPublisher(every: 1, on: v.loop).autoconnect()
        var cancellable: AnyCancellable? = publisher.sink { fires.record($0) }
        try v.loop.run(for: 2.5)
        switch ending {
        case "cancel": #expect(cancellable?.cancel() == true)
        case "detach": cancellable?.detach(); cancellable = nil
        default: cancellable = nil
        }
        try v.loop.run(for: 2.5)
        #expect(fires.values == (ending == "detach" ? [1, 2, 3, 4, 5] : [1, 2]))
        #expect(v.loop.armedTimerCount == (ending == "detach" ? 1 : 0))
    }

    // MARK: Countdown

    /// A countdown to 5 s ticking every second, which `end` ends at 2.5 s; run to 10 s.
    func countdownCase(_ end: (inout AnyCancellable?) -> Void) throws -> (values: [Int], finished: Bool, armed: Int) {
        let v = VirtualLoop()
        let values = Recorder<Int>(), finished = Shared(false)
        var countdown: AnyCancellable? = try v.loop.countdown(to: Date(timeIntervalSince1970: 5), tick: 1).subscribe {
            switch $0 {
            case .value(let remaining): values.append(remaining)
            case .finished: finished.value = true
            }
        }
        try v.loop.run(for: 2.5)
        #expect(values.values == [5, 4, 3] && v.loop.armedTimerCount == 2)
        end(&countdown)
        try v.loop.run(for: 7.5)
        return (values.values, finished.value, v.loop.armedTimerCount)
    }

    @Test("countdown_cancel") func countdownCancel() throws {
        let result = try countdownCase { countdown in #expect(countdown?.cancel() == true) }
        #expect(result.values == [5, 4, 3] && !result.finished && result.armed == 0)
    }

    @Test("countdown_give_up") func countdownGiveUp() throws {
        let result = try countdownCase { $0 = nil }
        #expect(result.values == [5, 4, 3] && !result.finished && result.armed == 0)
    }

    @Test("countdown_detach") func countdownDetach() throws {
        let result = try countdownCase { countdown in
            countdown?.detach()
            countdown = nil
        }
        #expect(result.values == [5, 4, 3, 2, 1, 0] && result.finished && result.armed == 0)
    }

    // MARK: Poller

    /// A poller every second (tolerance 0) whose polls finish inside the operation, which `end`
    /// ends at 2.5 s; run to 5 s. Returns the poll dates.
    func pollerCase(_ end: (inout Poller?) -> Void) throws -> (polls: [Double], armed: Int) {
        let v = VirtualLoop()
        let polls = Recorder<Double>()
        var poller: Poller? = try Poller(every: 1, tolerance: 0, on: v.loop) { [loop = v.loop] completion in
            polls.append(loop.now.timeIntervalSince1970)
            completion()
        }
        try v.loop.run(for: 2.5)
        #expect(polls.values == [1, 2])
        end(&poller)
        try v.loop.run(for: 2.5)
        return (polls.values, v.loop.armedTimerCount)
    }

    @Test("poller_cancel") func pollerCancel() throws {
        let result = try pollerCase { poller in #expect(poller?.cancel() == true) }
        #expect(result.polls == [1, 2] && result.armed == 0)
    }

    @Test("poller_give_up") func pollerGiveUp() throws {
        let result = try pollerCase { $0 = nil }
        #expect(result.polls == [1, 2] && result.armed == 0)
    }

    @Test("poller_detach") func pollerDetach() throws {
        let result = try pollerCase { poller in
            poller?.detach()
            poller = nil
        }
        #expect(result.polls == [1, 2, 3, 4, 5] && result.armed == 1)
    }

    // MARK: Loop

    /// Something an action holds, watched weakly to see the action freed.
    final class Captured: Sendable {}

    @Test("loop_close") func loopClose() throws {
        let v = VirtualLoop()
        var captured: Captured? = Captured()
        weak let watched = captured
        let oneShot = try v.loop.schedule(after: 1) { [captured] _ in withExtendedLifetime(captured) {} }
        let repeating = try v.loop.schedule(after: 1, interval: 1) { [captured] _ in withExtendedLifetime(captured) {} }
        repeating.detach()
        captured = nil
        let publisher = try TimerPublisher(every: 1, on: v.loop)
        let subscription = publisher.subscribe { _ in }
        let connection = publisher.connect()
        let autoconnected = try TimerPublisher(every: 1, on: v.loop).autoconnect().sink { _ in }
        let countdown = try v.loop.countdown(to: Date(timeIntervalSince1970: 5), tick: 1).subscribe { _ in }
        let poller = try Poller(every: 1, on: v.loop) { $0() }
        try v.loop.run(for: 0.5)
        #expect(v.loop.armedTimerCount == 7)  // the countdown's first value came at 0
        try v.loop.close()
        #expect(v.loop.armedTimerCount == 0)
        #expect(watched == nil)  // the timers' actions are freed
        #expect(throws: CadenceError.badHandle) { try oneShot.reset(after: 1) }
        #expect(throws: CadenceError.badHandle) { try repeating.reset(after: 1) }
        #expect(throws: CadenceError.badHandle) { try v.loop.run(for: 1) }
        // Every handle reads as ended, and no cancel stops anything (C: CADENCE_EBADF).
        let handles: [any Cancellable] = [oneShot, repeating, subscription, connection, autoconnected, countdown, poller]
        #expect(handles.map(\.isCancelled) == [true, true, true, true, true, true, true])
        #expect(handles.map { $0.cancel() } == [false, false, false, false, false, false, false])
    }

    /// A cancel lets go of the callback, and of what it captured, at once, while the handle is
    /// still held: every kind (the C and Python tests of the same name check the same).
    @Test("cancel_lets_go", arguments: ["one_shot", "repeating", "subscription", "countdown", "poller"])
    func cancelLetsGo(kind: String) throws {
        let v = VirtualLoop()
        var captured: Captured? = Captured()
        weak let watched = captured
        let handle: any Cancellable
        switch kind {
        case "one_shot": handle = try v.loop.schedule(after: 5) { [captured] _ in withExtendedLifetime(captured) {} }
        case "repeating":
            handle = try v.loop.schedule(after: 1, interval: 1) { [captured] _ in withExtendedLifetime(captured) {} }
        case "subscription":
            handle = try TimerPublisher(every: 1, on: v.loop).autoconnect().sink { [captured] _ in withExtendedLifetime(captured) {} }
        case "countdown":
            handle = try v.loop.countdown(to: Date(timeIntervalSince1970: 10), tick: 1)
                .subscribe { [captured] _ in withExtendedLifetime(captured) {} }
        default: handle = try Poller(every: 1, on: v.loop) { [captured] done in withExtendedLifetime(captured) { done() } }
        }
        captured = nil
        try v.loop.run(for: 2.5)
        #expect(watched != nil)
        #expect(handle.cancel())
        #expect(watched == nil)  // the handle is still held
        withExtendedLifetime(handle) {}
    }

    /// Closing a loop twice: the second close does nothing (no throw, as closing a file twice in
    /// Python), where C's second `cadence_loop_close` names a stale handle (`CADENCE_EBADF`).
    /// The loop stays closed, and a loop made since is untouched.
    @Test("loop_close_twice") func loopCloseTwice() throws {
        let v = VirtualLoop()
        let fires = Shared(0)
        try v.loop.schedule(after: 1, interval: 1) { _ in fires.value += 1 }.detach()
        try v.loop.close()
        try v.loop.close()
        #expect(v.loop.isClosed && v.loop.armedTimerCount == 0)
        #expect(throws: CadenceError.badHandle) { try v.loop.run(for: 1) }
        let next = VirtualLoop()
        let nextFires = Shared(0)
        try next.loop.schedule(after: 1, interval: 1) { _ in nextFires.value += 1 }.detach()
        try v.loop.close()
        try next.loop.run(for: 2.5)
        #expect(nextFires.value == 2 && fires.value == 0)
        try next.loop.close()
    }

    /// A detached repeating timer ends with its loop's last reference: the loop's deinit cancels
    /// it and frees its action.
    @Test func aDetachedTimerEndsWithItsLoop() throws {
        var captured: Captured? = Captured()
        weak let watched = captured
        weak var watchedLoop: Loop?
        do {
            let loop = Loop.virtual()
            watchedLoop = loop
            try loop.schedule(after: 1, interval: 1) { [captured] _ in withExtendedLifetime(captured) {} }.detach()
            captured = nil
            try loop.run(for: 2.5)
            #expect(watched != nil)
        }
        #expect(watchedLoop == nil && watched == nil)
    }

    @Test("autoconnect_1000_given_up", arguments: ["sink", "subscribe"])
    func autoconnect1000GivenUp(form: String) throws {
        let v = VirtualLoop()
        let fires = Shared(0)
        do {
            var handles: [AnyObject] = []
            for _ in 0..<1000 {
                let publisher = try TimerPublisher(every: 0.1, on: v.loop).autoconnect()
                handles.append(form == "sink"
                    ? publisher.sink { _ in fires.update { $0 += 1 } }
                    : publisher.subscribe { _ in fires.update { $0 += 1 } })
            }
            #expect(v.loop.armedTimerCount == 1000)
        }
        try v.loop.run(for: 0.5)
        #expect(fires.value == 0 && v.loop.armedTimerCount == 0)
    }

    // MARK: Weak targets

    final class Target: Sendable {
        let fires = Fires()
    }

    @Test("weak_target_collected") func weakTargetCollected() throws {
        let v = VirtualLoop()
        var target: Target? = Target()
        let fires = try #require(target).fires
        let timer = try v.loop.schedule(after: 1, interval: 1, target: try #require(target)) { $0.fires.record($1) }
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2])
        target = nil
        #expect(v.loop.armedTimerCount == 1)
        try v.loop.run(for: 0.5)  // the next fire date, 3: cancelled instead of fired
        #expect(v.loop.armedTimerCount == 0 && timer.isCancelled)
        try v.loop.run(for: 2)
        #expect(fires.values == [1, 2])
    }

    /// A weak-target timer that is detached lives exactly as long as its target.
    @Test func aDetachedWeakTargetTimerEndsWithItsTarget() throws {
        let v = VirtualLoop()
        var target: Target? = Target()
        let fires = try #require(target).fires
        try v.loop.schedule(after: 1, interval: 1, target: try #require(target)) { $0.fires.record($1) }.detach()
        try v.loop.run(for: 2.5)
        target = nil
        try v.loop.run(for: 2.5)
        #expect(fires.values == [1, 2] && v.loop.armedTimerCount == 0)
    }
}
