@testable import Cadence
import Testing

/// Timers with a weak target: they never keep the target alive, and once it is gone they cancel
/// themselves on their next fire date without calling the action.
@Suite struct ScheduledTimerTargetTests {
    /// A target that records the virtual milliseconds of its ticks.
    final class Ticker: Sendable {
        let log: Recorder<Int>
        init(log: Recorder<Int>) { self.log = log }
        func refresh(_ tick: TimerTick) { log.append(tick.milliseconds) }
    }

    @Test(arguments: [false, true])
    func aRepeatingTimerStopsOnItsFirstFireDateAfterTheTargetIsGone(durations: Bool) throws {
        let v = VirtualLoop()
        let log = Recorder<Int>()
        var ticker: Ticker? = Ticker(log: log)
        weak let watched = ticker
        let timer = durations
            ? try v.loop.schedule(after: .milliseconds(100), interval: .milliseconds(100), target: ticker!) { $0.refresh($1) }
            : try v.loop.schedule(after: 0.1, interval: 0.1, target: ticker!) { $0.refresh($1) }
        try v.loop.run(for: 0.25)
        #expect(log.values == [100, 200])
        ticker = nil
        #expect(watched == nil)  // the timer held no strong reference
        #expect(v.loop.armedTimerCount == 1 && !timer.isCancelled)
        try v.loop.run(for: 0.049)
        #expect(v.milliseconds == 299 && v.loop.armedTimerCount == 1)
        try v.loop.run(for: 0.001)  // the fire date 300: cancelled instead of fired
        #expect(v.milliseconds == 300 && v.loop.armedTimerCount == 0 && timer.isCancelled)
        try v.loop.run(for: 1)
        #expect(log.values == [100, 200])
    }

    @Test func theActionReceivesTheLiveTargetOnEveryTick() throws {
        let v = VirtualLoop()
        let ticker = Ticker(log: Recorder())
        let seen = Recorder<Bool>()
        let timer = try v.loop.schedule(after: 0, interval: 0.5, tolerance: 0.1, in: .common, missedTicks: .burst,
                                        target: ticker) { target, tick in
            seen.append(target === ticker)
            target.refresh(tick)
        }
        try v.loop.run(for: 1.2)
        #expect(ticker.log.values == [0, 500, 1000] && seen.values == [true, true, true])
        #expect(timer.interval == 0.5 && timer.tolerance == 0.1)
        timer.cancel()
        #expect(v.loop.armedTimerCount == 0)
    }

    @Test(arguments: [false, true])
    func aOneShotWhoseTargetIsGoneNeverFires(durations: Bool) throws {
        let v = VirtualLoop()
        let log = Recorder<Int>()
        var ticker: Ticker? = Ticker(log: log)
        weak let watched = ticker
        let timer = durations
            ? try v.loop.schedule(after: .milliseconds(100), target: ticker!) { $0.refresh($1) }
            : try v.loop.schedule(after: 0.1, target: ticker!) { $0.refresh($1) }
        ticker = nil
        #expect(watched == nil && v.loop.armedTimerCount == 1)
        try v.loop.run(for: 1)
        #expect(log.isEmpty && v.loop.armedTimerCount == 0 && timer.isCancelled)
        // A live target gets its call.
        let alive = Ticker(log: log)
        try v.loop.schedule(after: .milliseconds(250), target: alive) { $0.refresh($1) }
        try v.loop.run(for: 1)
        #expect(log.values == [1250])
    }

    @Test func aTargetReleasedByItsOwnActionLivesUntilTheActionReturns() throws {
        let v = VirtualLoop()
        let holder = Shared<Ticker?>(Ticker(log: Recorder()))
        weak let watched = holder.value
        let timer = try v.loop.schedule(after: 0.1, interval: 0.1, target: holder.value!) { target, tick in
            holder.value = nil  // the last strong reference but the action's own argument
            target.refresh(tick)
        }
        let other = try v.loop.schedule(after: 0.1, interval: 0.1) { _ in }
        try v.loop.run(for: 0.15)
        #expect(watched == nil)  // gone once the action returned
        try v.loop.run(for: 0.05)  // its next fire date cancels it, and only it
        #expect(timer.isCancelled && !other.isCancelled && v.loop.armedTimerCount == 1)
    }

    /// A target that keeps its own subscription, the way a view model stores its cancellables.
    final class Owner: Sendable {
        let log: Recorder<Int>
        let subscription = Shared<AnyCancellable?>(nil)
        init(log: Recorder<Int>) { self.log = log }
    }

    @Test func aSinkStoredInItsTargetEndsWithTheTarget() throws {
        let v = VirtualLoop()
        let log = Recorder<Int>()
        let publisher = try TimerPublisher(every: 0.1, on: v.loop).autoconnect()
        var owner: Owner? = Owner(log: log)
        weak let watched = owner
        owner!.subscription.value = publisher.sink(target: owner!) { owner, date in
            owner.log.append(Int((date.timeIntervalSince1970 * 1000).rounded()))
        }
        try v.loop.run(for: 0.25)
        #expect(log.values == [100, 200] && v.loop.armedTimerCount == 1)
        owner = nil  // its deinit cancels the subscription, the last one: the timer stops at once
        #expect(watched == nil && publisher.subscriberCount == 0 && v.loop.armedTimerCount == 0)
        try v.loop.run(for: 1)
        #expect(log.values == [100, 200])
    }

    @Test func aSinkHeldElsewhereCancelsOnTheFirstTickAfterItsTargetIsGone() throws {
        let v = VirtualLoop()
        let log = Recorder<Int>()
        let publisher = try TimerPublisher(every: 0.1, on: v.loop)
        let connection = publisher.connect()
        var ticker: Ticker? = Ticker(log: log)
        weak let watched = ticker
        let subscription = publisher.sink(target: ticker!) { ticker, date in
            ticker.log.append(Int((date.timeIntervalSince1970 * 1000).rounded()))
        }
        let other = Recorder<Int>()
        let kept = publisher.sink { other.append(Int(($0.timeIntervalSince1970 * 1000).rounded())) }
        try v.loop.run(for: 0.15)
        ticker = nil
        #expect(watched == nil && publisher.subscriberCount == 2 && !subscription.isCancelled)
        try v.loop.run(for: 0.05)  // the tick at 200 finds it gone
        #expect(subscription.isCancelled && publisher.subscriberCount == 1)
        try v.loop.run(for: 0.1)
        #expect(log.values == [100] && other.values == [100, 200, 300])
        // An autoconnect publisher whose last subscriber's target is gone stops its timer then.
        let auto = try TimerPublisher(every: 0.1, on: v.loop).autoconnect()
        var second: Ticker? = Ticker(log: log)
        let held = auto.sink(target: second!) { _, _ in }
        #expect(v.loop.armedTimerCount == 2)
        second = nil
        try v.loop.run(for: 0.099)
        #expect(v.loop.armedTimerCount == 2 && !held.isCancelled)
        try v.loop.run(for: 0.001)
        #expect(v.loop.armedTimerCount == 1 && held.isCancelled && !auto.isConnected)
        connection.cancel()
        kept.cancel()
    }

    @Test func badArgumentsThrowNamingTheTargetForm() throws {
        let loop = Loop.virtual()
        let ticker = Ticker(log: Recorder())
        let repeating = try #require(throws: CadenceError.self) {
            _ = try loop.schedule(after: 0, interval: 0, target: ticker) { _, _ in }
        }
        #expect(repeating == .invalidArgument
                && repeating.call == "Loop.schedule(after:interval:tolerance:in:missedTicks:target:_:)")
        let duration = try #require(throws: CadenceError.self) {
            _ = try loop.schedule(after: .zero, interval: .seconds(-1), target: ticker) { _, _ in }
        }
        #expect(duration == .invalidArgument && duration.call == repeating.call)
        let oneShot = try #require(throws: CadenceError.self) {
            _ = try loop.schedule(after: -1, target: ticker) { _, _ in }
        }
        #expect(oneShot == .invalidArgument && oneShot.call == "Loop.schedule(after:tolerance:in:target:_:)")
        let mode = try #require(throws: CadenceError.self) {
            _ = try loop.schedule(after: 1, interval: 1, in: RunLoopMode("nowhere"), target: ticker) { _, _ in }
        }
        #expect(mode == .unknownMode && loop.armedTimerCount == 0)
    }
}
