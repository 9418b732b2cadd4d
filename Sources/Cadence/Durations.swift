import FoundationEssentials

// The `Duration` forms of the calls that take seconds, for code written the way the standard
// library and swift-nio write it (`.milliseconds(100)`); the `Double` forms stay for Foundation's
// `TimeInterval`. Each form checks its value with one helper and forwards to the same body: a
// `Duration` is rounded up to whole nanoseconds (never early), and a bad one gets the error the
// same number of seconds would get, its message naming the argument and showing the `Duration`
// as given (`interval must be > 0, got .milliseconds(-5)`), not as seconds.

extension Loop {
    /// ``run(mode:for:)-(_,Double)`` for a `Duration`: runs the loop in `mode` for `duration` of
    /// its clock (rounded up to whole nanoseconds), then returns (early if ``stop()`` is called).
    ///
    /// - Parameters:
    ///   - mode: a registered mode other than ``RunLoopMode/common``.
    ///   - duration: how long to run, ≥ 0 (`.zero` fires what is due now and returns);
    ///     ``run(mode:)`` runs until ``stop()``.
    /// - Throws: as the `Double` form: ``CadenceError/invalidArgument`` for a negative duration,
    ///   for `common`, or, on a virtual loop, for a duration that would take the clock to its end
    ///   (the messages name it `duration` and show it as given); ``CadenceError/unknownMode``,
    ///   ``CadenceError/busy``, ``CadenceError/notSupported`` and ``CadenceError/badHandle`` as there.
    public func run(mode: RunLoopMode = .default, for duration: Duration) throws(CadenceError) {
        do {
            _ = try run(mode: mode, for: try checkedAdvance(duration), onOwnThread: false)
        } catch { throw error.in("Loop.run(mode:for:)") }
    }

    /// ``jumpClock(by:)-(Double)`` for a `Duration`: moves a virtual loop's clock forward by
    /// `duration` (rounded up to whole nanoseconds) without running the loop.
    ///
    /// - Throws: as the `Double` form: ``CadenceError/notSupported`` on a real loop;
    ///   ``CadenceError/invalidArgument`` for a negative duration or one that would take the
    ///   clock to its end (the messages name it `duration` and show it as given);
    ///   ``CadenceError/badHandle`` after ``close()``.
    public func jumpClock(by duration: Duration) throws(CadenceError) {
        do {
            try advanceClock(by: try checkedAdvance(duration), seconds: duration.inSeconds)
        } catch { throw error.in("Loop.jumpClock(by:)") }
    }

    /// The former name of ``jumpClock(by:)-(Duration)``.
    @available(*, deprecated, renamed: "jumpClock(by:)")
    public func advanceClock(by duration: Duration) throws(CadenceError) { try jumpClock(by: duration) }

    /// `duration` in nanoseconds, checked as a run or a clock advance takes it: ≥ 0, and on a
    /// virtual loop short of the clock's end (checked here, so that the message shows the
    /// `Duration`; the bodies would show seconds).
    func checkedAdvance(_ duration: Duration) throws(CadenceError) -> Nanoseconds {
        let amount = try nanoseconds(from: duration, allowZero: true, argument: "duration")
        if let clock = timeSource as? VirtualClock, !clock.canAdvance(by: amount) { throw .beyondClockEnd(duration) }
        return amount
    }

    /// ``schedule(after:tolerance:in:_:)-(Double,_,_,_)`` for `Duration`s: runs `action` once,
    /// `delay` from a fresh clock read, within `tolerance`, while the loop runs in a mode covered
    /// by `mode`.
    ///
    /// - Parameters:
    ///   - delay: ≥ 0, rounded up to whole nanoseconds (`.zero` fires on the next pass, never in
    ///     a pass already running).
    ///   - tolerance: allowed lateness, ≥ 0, rounded up to whole nanoseconds.
    ///   - mode: a registered mode or ``RunLoopMode/common``.
    ///   - action: called once, on the thread that runs the loop, as in the `Double` form.
    /// - Returns: a handle whose ``ScheduledTimer/cancel()`` prevents the action if it has not started.
    /// - Throws: as the `Double` form, with messages that show the `Duration` as given for a negative `delay` or
    ///   `tolerance`. When it throws, `action` is never called.
    @discardableResult
    public func schedule(after delay: Duration, tolerance: Duration = .zero, in mode: RunLoopMode = .default,
                         _ action: @escaping @Sendable (TimerTick) -> Void) throws(CadenceError) -> ScheduledTimer {
        do {
            return ScheduledTimer(loop: self, id: try scheduleOnce(
                after: try nanoseconds(from: delay, allowZero: true, argument: "delay"),
                tolerance: try nanoseconds(from: tolerance, allowZero: true, argument: "tolerance"),
                in: mode, action: .closure(action)))
        } catch {
            throw error.in("Loop.schedule(after:tolerance:in:_:)")
        }
    }

    /// ``schedule(after:interval:tolerance:in:missedTicks:_:)-(Double,_,_,_,_,_)`` for
    /// `Duration`s: runs `action` every `interval`, first `delay` from now, on a fixed grid.
    ///
    /// - Parameters:
    ///   - delay: to the first fire date, ≥ 0, rounded up to whole nanoseconds.
    ///   - interval: between fire dates, > 0, rounded up to whole nanoseconds.
    ///   - tolerance: allowed lateness, ≥ 0, rounded up to whole nanoseconds.
    ///   - mode: a registered mode or ``RunLoopMode/common``.
    ///   - missedTicks: what a late timer does about the fire dates it missed (default: skip them).
    ///   - action: called on the thread that runs the loop, once per fire, as in the `Double` form.
    /// - Returns: the timer, which stops when its last copy goes away unless detached, as in the
    ///   `Double` form.
    /// - Throws: as the `Double` form, with messages that show the `Duration` as given for a negative `delay` or `tolerance`
    ///   and a zero or negative `interval`. When it throws, `action` is never called.
    public func schedule(after delay: Duration, interval: Duration, tolerance: Duration = .zero,
                         in mode: RunLoopMode = .default, missedTicks: MissedTickPolicy = .skip,
                         _ action: @escaping @Sendable (TimerTick) -> Void) throws(CadenceError) -> ScheduledTimer {
        do {
            let id = try arm(delay: try nanoseconds(from: delay, allowZero: true, argument: "delay"),
                             interval: try nanoseconds(from: interval, allowZero: false, argument: "interval"),
                             tolerance: try nanoseconds(from: tolerance, allowZero: true, argument: "tolerance"),
                             missedTicks: missedTicks, mode: mode, action: .closure(action))
            return ScheduledTimer(loop: self, repeating: id)
        } catch {
            throw error.in("Loop.schedule(after:interval:tolerance:in:missedTicks:_:)")
        }
    }

    /// ``schedule(after:tolerance:in:target:_:)-(Double,_,_,_,_)`` for `Duration`s: calls
    /// `action(target, tick)` once, `delay` from now, if the weakly held `target` is still alive.
    ///
    /// - Parameters:
    ///   - delay: ≥ 0, rounded up to whole nanoseconds.
    ///   - tolerance: allowed lateness, ≥ 0, rounded up to whole nanoseconds.
    ///   - mode: a registered mode or ``RunLoopMode/common``.
    ///   - target: held weakly, as in the `Double` form.
    ///   - action: called on the thread that runs the loop, as in the `Double` form.
    /// - Throws: as the `Double` form, with messages that show a `Duration` as given. When it throws, `action` is never called.
    @discardableResult
    public func schedule<Target: AnyObject & Sendable>(
        after delay: Duration, tolerance: Duration = .zero, in mode: RunLoopMode = .default, target: Target,
        _ action: @escaping @Sendable (Target, TimerTick) -> Void
    ) throws(CadenceError) -> ScheduledTimer {
        do {
            return ScheduledTimer(loop: self, id: try scheduleOnce(
                after: try nanoseconds(from: delay, allowZero: true, argument: "delay"),
                tolerance: try nanoseconds(from: tolerance, allowZero: true, argument: "tolerance"),
                in: mode, action: weakAction(target, action)))
        } catch {
            throw error.in("Loop.schedule(after:tolerance:in:target:_:)")
        }
    }

    /// ``schedule(after:interval:tolerance:in:missedTicks:target:_:)-(Double,_,_,_,_,_,_)`` for
    /// `Duration`s: calls `action(target, tick)` every `interval`, first `delay` from now, until
    /// the timer is cancelled or the weakly held `target` is gone (the timer then cancels itself
    /// on its next fire date, without calling the action).
    ///
    /// - Parameters:
    ///   - delay: to the first fire date, ≥ 0, rounded up to whole nanoseconds.
    ///   - interval: between fire dates, > 0, rounded up to whole nanoseconds.
    ///   - tolerance: allowed lateness, ≥ 0, rounded up to whole nanoseconds.
    ///   - mode: a registered mode or ``RunLoopMode/common``.
    ///   - missedTicks: what a late timer does about the fire dates it missed (default: skip them).
    ///   - target: held weakly, as in the `Double` form.
    ///   - action: called on the thread that runs the loop, once per fire, as in the `Double` form.
    /// - Returns: the timer, which stops when its last copy goes away unless detached, as in the
    ///   `Double` form.
    /// - Throws: as the `Double` form, with messages that show a `Duration` as given. When it throws, `action` is never called.
    public func schedule<Target: AnyObject & Sendable>(
        after delay: Duration, interval: Duration, tolerance: Duration = .zero, in mode: RunLoopMode = .default,
        missedTicks: MissedTickPolicy = .skip, target: Target,
        _ action: @escaping @Sendable (Target, TimerTick) -> Void
    ) throws(CadenceError) -> ScheduledTimer {
        do {
            let id = try arm(delay: try nanoseconds(from: delay, allowZero: true, argument: "delay"),
                             interval: try nanoseconds(from: interval, allowZero: false, argument: "interval"),
                             tolerance: try nanoseconds(from: tolerance, allowZero: true, argument: "tolerance"),
                             missedTicks: missedTicks, mode: mode, action: weakAction(target, action))
            return ScheduledTimer(loop: self, repeating: id)
        } catch {
            throw error.in("Loop.schedule(after:interval:tolerance:in:missedTicks:target:_:)")
        }
    }
}

extension ScheduledTimer {
    /// ``reset(after:)-(Double)`` for a `Duration`: moves the timer's next fire date to `delay`
    /// (≥ 0, rounded up to whole nanoseconds) after a fresh read of the loop's clock.
    ///
    /// - Throws: as the `Double` form: ``CadenceError/invalidArgument`` for a negative `delay`
    ///   (its message shows it as given), ``CadenceError/alreadyCancelled``, ``CadenceError/badHandle``. When
    ///   it throws, the timer is left as it was.
    public func reset(after delay: Duration) throws(CadenceError) {
        do {
            try loop.reset(id, delay: try nanoseconds(from: delay, allowZero: true, argument: "delay"))
        } catch { throw error.in("ScheduledTimer.reset(after:)") }
    }
}

extension TimerPublisher {
    /// ``init(every:tolerance:on:in:missedTicks:)-(Double,_,_,_,_)`` for `Duration`s.
    /// Nothing is scheduled until ``connect()``.
    ///
    /// ``interval`` and ``tolerance`` then read the durations in seconds.
    ///
    /// - Parameters:
    ///   - interval: between fire dates, > 0, rounded up to whole nanoseconds.
    ///   - tolerance: allowed lateness, ≥ 0, rounded up to whole nanoseconds.
    ///   - loop: the loop whose runs fire the timer.
    ///   - mode: a mode registered on `loop`, as in the `Double` form.
    ///   - missedTicks: what a late timer does about the fire dates it missed (default: skip them).
    /// - Throws: as the `Double` form, with messages that show the `Duration` as given for a zero or negative `interval`
    ///   and a negative `tolerance`.
    public convenience init(every interval: Duration, tolerance: Duration = .zero, on loop: Loop,
                            in mode: RunLoopMode = .default, missedTicks: MissedTickPolicy = .skip) throws(CadenceError) {
        let intervalNs: Nanoseconds, toleranceNs: Nanoseconds
        do {
            intervalNs = try nanoseconds(from: interval, allowZero: false, argument: "interval")
            toleranceNs = try nanoseconds(from: tolerance, allowZero: true, argument: "tolerance")
        } catch {
            throw error.in(Self.initializer)
        }
        try self.init(interval: (intervalNs, interval.inSeconds), tolerance: (toleranceNs, tolerance.inSeconds),
                      on: loop, in: mode, missedTicks: missedTicks)
    }
}

// The scheduler-generic calls work in `Date`s and seconds (a loop rounds a `Date` to whole
// microseconds, which is all a `Date` holds today): their `Duration` forms pass the duration on
// in seconds, rounded up to whole nanoseconds first, and leave the checks to the `Double` forms,
// whose message about a bad one is then made again to show the `Duration` as given.

extension CadenceError {
    /// This error, its message about a bad `argument` (from a `Double` form given `duration` in
    /// seconds) made again to show `duration` as the caller wrote it; any other error as it is.
    func showing(_ duration: Duration, as argument: StaticString, allowZero: Bool) -> CadenceError {
        guard self == .invalidArgument, message.hasPrefix("\(argument) must be") else { return self }
        return CadenceError.badDuration(argument, duration, allowZero: allowZero).in(call)
    }

    /// ``showing(_:as:allowZero:)`` for the interval (> 0) and the tolerance (≥ 0) of a repeating
    /// schedule or a poller.
    func showing(interval: Duration, tolerance: Duration?) -> CadenceError {
        showing(interval, as: "interval", allowZero: false).showing(tolerance ?? .zero, as: "tolerance", allowZero: true)
    }
}

extension Scheduler {
    /// `schedule(after:tolerance:_:)` with a `Duration` of tolerance (≥ 0).
    ///
    /// - Throws: what the `Double` form throws, with a message that shows the `Duration` as given for a negative tolerance.
    public func schedule(after date: Date, tolerance: Duration, _ action: @escaping @Sendable () -> Void)
        throws(CadenceError) -> any Cancellable {
        do { return try schedule(after: date, tolerance: tolerance.roundedUpSeconds, action) } catch {
            throw error.showing(tolerance, as: "tolerance", allowZero: true)
        }
    }

    /// `schedule(after:interval:tolerance:_:)` with `Duration`s: an
    /// interval > 0 and a tolerance ≥ 0.
    ///
    /// - Throws: what the `Double` form throws, with messages that show the `Duration` as given for a bad interval or tolerance.
    public func schedule(after date: Date, interval: Duration, tolerance: Duration,
                         _ action: @escaping @Sendable () -> Void) throws(CadenceError) -> any Cancellable {
        do {
            return try schedule(after: date, interval: interval.roundedUpSeconds,
                                tolerance: tolerance.roundedUpSeconds, action)
        } catch { throw error.showing(interval: interval, tolerance: tolerance) }
    }

    /// `ticks(every:tolerance:)` with `Duration`s: 0, 1, 2, … every `interval`
    /// (> 0, checked when subscribing), within `tolerance` (nil: ``minimumTolerance``).
    public func ticks(every interval: Duration, tolerance: Duration? = nil) -> Ticks<Self> {
        ticks(every: interval.roundedUpSeconds, tolerance: tolerance?.roundedUpSeconds)
    }

    /// `countdown(to:tick:)` with a `Duration` between recomputations (> 0, checked
    /// when subscribing, with the `Double` form's message). `deadline` is a date on the
    /// scheduler's clock, as in the `Double` form: `now.addingTimeInterval(10)` for 10 s.
    public func countdown(to deadline: Date, tick: Duration) -> Countdown<Self> {
        countdown(to: deadline, tick: tick.roundedUpSeconds)
    }
}

extension Poller {
    /// `init(every:tolerance:on:operation:)` with `Duration`s: an interval > 0
    /// and a tolerance ≥ 0 (nil: 10 % of the interval).
    ///
    /// - Throws: as the `Double` form, with messages that show the `Duration` as given for a bad interval or tolerance.
    public convenience init(every interval: Duration, tolerance: Duration? = nil, on scheduler: some Scheduler,
                            operation: @escaping @Sendable (_ completion: @escaping @Sendable () -> Void) -> Void)
        throws(CadenceError) {
        do {
            try self.init(every: interval.roundedUpSeconds, tolerance: tolerance?.roundedUpSeconds, on: scheduler,
                          operation: operation)
        } catch { throw error.showing(interval: interval, tolerance: tolerance) }
    }

    /// `init(every:tolerance:on:operation:)` with `Duration`s, for an
    /// `async` operation: a poll finishes when it returns.
    ///
    /// - Throws: as the `Double` form, with messages that show the `Duration` as given for a bad interval or tolerance.
    public convenience init(every interval: Duration, tolerance: Duration? = nil, on scheduler: some Scheduler,
                            operation: @escaping @Sendable () async -> Void) throws(CadenceError) {
        do {
            try self.init(every: interval.roundedUpSeconds, tolerance: tolerance?.roundedUpSeconds, on: scheduler,
                          operation: operation)
        } catch { throw error.showing(interval: interval, tolerance: tolerance) }
    }
}

extension VirtualScheduler {
    /// ``advance(by:)-(Double)`` for a `Duration`: runs everything due in the next `duration`
    /// (≥ 0, rounded up to whole nanoseconds), stepping the clock to each date.
    ///
    /// - Throws: as the `Double` form, with a message that shows the `Duration` as given for a negative duration.
    public func advance(by duration: Duration) throws(CadenceError) {
        do { try loop.run(mode: .default, for: duration) } catch { throw error.in("VirtualScheduler.advance(by:)") }
    }
}
