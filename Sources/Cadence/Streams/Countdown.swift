import FoundationEssentials
import Synchronization

/// Countdowns on any scheduler.
extension Scheduler {
    /// Emits the whole seconds remaining until `deadline` (rounded up) on the scheduler's next
    /// pass and whenever the value changes on a tick, then 0 at the deadline, then finishes.
    ///
    /// Subscribing never delivers from inside the call (libuv's rule: a registering call never
    /// calls back): the first value comes from a one-shot due at once, which a loop fires on its
    /// next pass, at the same (virtual) time, and it is computed then, so it is still right.
    ///
    /// Each value is computed from the scheduler's clock and the deadline, never by counting ticks,
    /// so after any gap (a blocked thread, skipped ticks) the next value is right: a skipped tick
    /// costs one stale value, not drift. The ticks only prompt a recomputation.
    ///
    /// The deadline is a date, not a duration: seconds since the epoch on a real loop, virtual
    /// seconds (from 0) on a virtual one. Add the seconds to go to the scheduler's `now`:
    ///
    /// ```swift
    /// let countdown = loop.countdown(to: loop.now.addingTimeInterval(10), tick: 0.25)  // 10 s
    /// ```
    ///
    /// `Date(timeIntervalSince1970: 10)` counts 10 s only on a virtual loop at 0; on a real loop
    /// it is long past, so the countdown emits 0 and finishes on its first pass.
    ///
    /// The countdown is cold, as Combine's publishers are: nothing starts until a subscriber
    /// comes, and each subscriber gets a countdown of its own from when it subscribes. C's
    /// `cadence_countdown_start` and Python's `Loop.countdown()` are this publisher and one
    /// subscriber in one call, so they start at once.
    ///
    /// - Parameters:
    ///   - deadline: when the countdown reaches 0: a date on this scheduler's clock, such as
    ///     `now.addingTimeInterval(seconds)`; a past deadline emits 0 and finishes on the next
    ///     pass.
    ///   - tick: seconds between recomputations, > 0 and finite (0.25 gives a responsive label).
    public func countdown(to deadline: Date, tick: Double) -> Countdown<Self> {
        Countdown(scheduler: self, deadline: deadline, tick: tick)
    }
}

/// The stream made by ``Scheduler/countdown(to:tick:)-(_,Double)``.
public struct Countdown<S: Scheduler>: EventPublisher {
    /// Whole seconds remaining, rounded up.
    public typealias Output = Int

    /// The scheduler whose clock the countdown reads.
    public let scheduler: S
    /// When the countdown reaches 0.
    public let deadline: Date
    /// Seconds between recomputations.
    public let tick: Double

    /// Starts this subscriber's timers (a one-shot due now for the first value, a repeating tick
    /// and a one-shot at the deadline); cancelling removes them, and so does giving up the returned
    /// cancellable (its deinit), unless ``AnyCancellable/detach()`` was called: a detached
    /// countdown runs to 0 and finishes (<doc:Lifetimes>). Nothing is emitted before this
    /// returns: the first value comes on the scheduler's next pass.
    ///
    /// - Throws: ``CadenceError/invalidArgument`` for a tick that is not > 0 and finite or a
    ///   deadline that is not finite, or what the scheduler throws; then nothing is emitted.
    public func subscribe(_ receive: @escaping @Sendable (StreamEvent<Int>) -> Void) throws(CadenceError) -> AnyCancellable {
        let gate = SubscriptionGate(receive, on: scheduler)
        try start(gate)
        return gate.cancellable
    }

    /// Checks the tick and the deadline, then arms the timers that send `gate` its events; on an
    /// error nothing is armed (or sent).
    func start(_ gate: SubscriptionGate<Int>) throws(CadenceError) {
        guard tick.isFinite, tick > 0 else { throw CadenceError.badSeconds("tick", tick, allowZero: false).in("Countdown.subscribe(_:)") }
        guard deadline.timeIntervalSince1970.isFinite else {
            throw CadenceError.badDate("deadline", deadline.timeIntervalSince1970).in("Countdown.subscribe(_:)")
        }
        let state = CountdownState(deadline: deadline)
        let update: @Sendable () -> Void = { [scheduler] in
            switch state.next(now: scheduler.now) {
            case .none: break
            case .some(let remaining):
                gate.send(remaining)
                if remaining == 0 { gate.finish() }
            }
        }
        let now = scheduler.now
        do throws(CadenceError) {
            gate.own(try scheduler.schedule(after: now, tolerance: 0, update))
            guard deadline > now else { return }  // the first pass finishes it
            gate.own(try scheduler.schedule(after: now.addingTimeInterval(tick), interval: tick,
                                            tolerance: scheduler.minimumTolerance, update))
            gate.own(try scheduler.schedule(after: deadline, tolerance: 0, update))
        } catch {
            gate.close()  // removes the timers armed so far; nothing was emitted
            throw error
        }
    }
}

extension Countdown where S == Loop {
    /// The subscription of a countdown that calls a C registration's handler of type `type` with
    /// `words` (`cadence_countdown_start`), as armed on the loop's host functions set now
    /// (``PlainTimerHandler/armed(_:loop:)``), its events naming `source` (its handle); not
    /// started (``start(_:)``). The handler's end (``HandlerLife``) comes once if the countdown
    /// ends without its finished event; `onFinish` runs after that event's call has returned.
    ///
    /// - Throws: what the handler's `armed` throws.
    func handlerSubscription(_ words: HandlerWords, of type: any PlainCountdownHandler.Type, source: UInt64,
                             onFinish: @escaping @Sendable () -> Void) throws(CadenceError) -> SubscriptionGate<Int> {
        let loop = scheduler
        let words = try type.armed(words, loop: loop.functionWords).words
        return SubscriptionGate({ event in
            switch event {
            case .value(let value):
                type.countdown(words, remaining: value, finished: false, date: loop.nowSeconds, source: source)
            case .finished:
                type.countdown(words, remaining: 0, finished: true, date: loop.nowSeconds, source: source)
            }
        }, on: loop, life: HandlerLife.make((words, type)), stream: (deadline, tick), onFinish: onFinish)
    }
}

/// The last value a countdown sent, to send only changes.
final class CountdownState: Sendable {
    private let deadline: Date
    private let last = Mutex<Int?>(nil)

    init(deadline: Date) { self.deadline = deadline }

    /// The value to send at `now`, or nil if it has not changed (or 0 was already sent).
    func next(now: Date) -> Int? {
        // Whole microseconds first, so that `Date`'s rounding (about 0.1 µs) cannot turn exactly
        // 2 s remaining into 2.0000001 and so into 3.
        let seconds = ((deadline.timeIntervalSince(now) * 1e6).rounded() / 1e6).rounded(.up)
        let remaining = seconds <= 0 ? 0 : Int(min(seconds, Double(Int.max / 2)))
        return last.withLock { last in
            guard remaining != last, last != 0 else { return nil }
            last = remaining
            return remaining
        }
    }
}
