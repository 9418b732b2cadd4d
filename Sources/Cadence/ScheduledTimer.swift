import FoundationEssentials

/// Timers armed directly on a loop, without a publisher.
extension Loop {
    /// Runs `action` once, `delay` seconds from now, while the loop runs in a mode covered by `mode`.
    ///
    /// Like `Timer.scheduledTimer(withTimeInterval:repeats: false)` added to `mode`. The action
    /// receives a tick whose fire date is the time it was due.
    ///
    /// - Parameters:
    ///   - delay: seconds from a fresh clock read, ≥ 0 and finite (0 fires on the next pass, never
    ///     in a pass already running).
    ///   - tolerance: seconds of allowed lateness, ≥ 0 and finite.
    ///   - mode: a registered mode or ``RunLoopMode/common``.
    ///   - action: called once, on the thread that runs the loop (which may be its own thread:
    ///     ``Loop/startThread(mode:)``, hence `@Sendable`), with a ``TimerTick`` whose
    ///     ``TimerTick/fireDate`` is the time it was due; it may call any method of the loop,
    ///     including cancelling this timer or scheduling another.
    /// - Returns: a handle whose ``ScheduledTimer/cancel()`` prevents the action if it has not
    ///   started. The timer fires whether or not the handle is kept (fire-and-forget).
    /// - Throws: ``CadenceError/invalidArgument``, ``CadenceError/unknownMode`` or
    ///   ``CadenceError/badHandle``, as ``TimerPublisher/init(every:tolerance:on:in:missedTicks:)-(Double,_,_,_,_)``. When it
    ///   throws, `action` is never called.
    @discardableResult
    public func schedule(after delay: Double, tolerance: Double = 0, in mode: RunLoopMode = .default,
                         _ action: @escaping @Sendable (TimerTick) -> Void) throws(CadenceError) -> ScheduledTimer {
        do {
            return ScheduledTimer(loop: self, id: try scheduleOnce(
                after: try nanoseconds(fromSeconds: delay, allowZero: true, argument: "delay"),
                tolerance: try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance"),
                in: mode, action: .closure(action)))
        } catch {
            throw error.in("Loop.schedule(after:tolerance:in:_:)")
        }
    }

    /// Waits until a running callback of the timer with packed id `packedID` has returned (see
    /// ``ScheduledTimer/cancel()``).
    package func waitForCallback(packedID: UInt64) {
        waitForCallback(of: TimerID(packed: packedID))
    }

    /// A one-shot by checked nanoseconds: the Double and `Duration` forms' one body.
    @inline(__always)
    func scheduleOnce(after delay: Nanoseconds, tolerance: Nanoseconds, in mode: RunLoopMode,
                      action: consuming TimerAction) throws(CadenceError) -> TimerID {
        try arm(delay: delay, interval: 0, tolerance: tolerance, mode: mode, action: action)
    }

    /// Runs `action` every `interval` seconds, first `delay` seconds from now, on a fixed grid:
    /// a late fire happens once, reports the skipped ticks, and the grid never drifts.
    ///
    /// Like a repeating `Timer` added to `mode`, without a publisher.
    ///
    /// - Parameters:
    ///   - delay: seconds to the first fire date, ≥ 0 and finite.
    ///   - interval: seconds between fire dates, > 0 and finite.
    ///   - tolerance: seconds of allowed lateness, ≥ 0 and finite.
    ///   - mode: a registered mode or ``RunLoopMode/common``.
    ///   - missedTicks: what a late timer does about the fire dates it missed (default: skip them).
    ///   - action: called on the thread that runs the loop (`@Sendable`, as for the one-shot),
    ///     once per fire, with a ``TimerTick``
    ///     giving the fire date and the ticks skipped before it (``TimerTick/skipped``); it may call
    ///     any method of the loop, including cancelling this timer, after which it is not called again.
    /// - Returns: the timer, which runs while a copy of it is kept: the last copy going away stops
    ///   it, as ``ScheduledTimer/cancel()`` does, unless ``ScheduledTimer/detach()`` was called
    ///   (<doc:Lifetimes>).
    /// - Throws: as ``schedule(after:tolerance:in:_:)-(Double,_,_,_)``, and ``CadenceError/invalidArgument`` for a
    ///   bad interval. When it throws, `action` is never called.
    public func schedule(after delay: Double, interval: Double, tolerance: Double = 0,
                         in mode: RunLoopMode = .default, missedTicks: MissedTickPolicy = .skip,
                         _ action: @escaping @Sendable (TimerTick) -> Void) throws(CadenceError) -> ScheduledTimer {
        do {
            let id = try arm(delay: try nanoseconds(fromSeconds: delay, allowZero: true, argument: "delay"),
                             interval: try nanoseconds(fromSeconds: interval, allowZero: false, argument: "interval"),
                             tolerance: try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance"),
                             missedTicks: missedTicks, mode: mode, action: .closure(action))
            return ScheduledTimer(loop: self, repeating: id)
        } catch {
            throw error.in("Loop.schedule(after:interval:tolerance:in:missedTicks:_:)")
        }
    }
}

/// A timer armed by ``Loop/schedule(after:tolerance:in:_:)-(Double,_,_,_)`` (one-shot) or
/// ``Loop/schedule(after:interval:tolerance:in:missedTicks:_:)-(Double,_,_,_,_,_)`` (repeating).
///
/// A small value that names the timer inside its loop: copies name the same timer.
///
/// Giving the timer up (its last copy going away) depends on its kind (<doc:Lifetimes>):
/// - A one-shot is fire-and-forget: it fires once at its fire date whether or not a copy is
///   kept, and making one allocates nothing.
/// - A repeating timer stops when its last copy goes away, as if cancelled: no fire starts after
///   that. Keep a copy for as long as it should run, or call ``detach()`` to let it run without
///   one (until ``cancel()`` through a copy kept after all, or the loop's ``Loop/close()``).
///
/// The last copy going away on another thread while the action runs on the loop's thread waits
/// for the action to return, as ``cancel()`` does (so do not give it up while holding a lock the
/// action takes). An action that captures its own repeating timer keeps a copy alive, so that
/// timer runs until cancelled; the forms with a `target` (<doc:TimersAndTheirTargets>) avoid that.
public struct ScheduledTimer: Cancellable, Hashable, Sendable {
    /// The loop, or a repeating timer's owner (which holds the loop): one reference either way,
    /// so that a handle stays two words, as a one-shot's was before repeating timers had owners.
    private let reference: Reference
    let id: TimerID

    private enum Reference: Sendable {
        /// A one-shot, or a C layer's handle (which keeps the engine id instead of this value).
        case loop(Loop)
        /// A repeating timer: shared by every copy, it cancels the timer when the last copy is gone.
        case owner(TimerOwner)
    }

    /// The loop the timer is armed on.
    var loop: Loop {
        switch reference {
        case .loop(let loop): loop
        case .owner(let owner): owner.loop
        }
    }

    init(loop: Loop, id: TimerID) {
        reference = .loop(loop)
        self.id = id
    }

    /// A repeating timer, whose last copy going away cancels it.
    init(loop: Loop, repeating id: TimerID) {
        reference = .owner(TimerOwner(loop: loop, id: id))
        self.id = id
    }

    /// The timer of `loop` whose ``TimerID/packed`` id is `packedID` (the C layer's timers): a
    /// name only, whose copies going away leave the timer as it is.
    package init(loop: Loop, packedID: UInt64) {
        self.init(loop: loop, id: TimerID(packed: packedID))
    }

    /// Lets a repeating timer run on once every copy of it has gone away: afterwards giving it up
    /// does not stop it, and it runs until cancelled (through a copy kept after all) or until its
    /// loop is closed. Does nothing for a one-shot (fire-and-forget anyway), and nothing more the
    /// second time; callable from any thread, also on a timer that has ended.
    public func detach() {
        if case .owner(let owner) = reference { owner.detach() }
    }

    /// Prevents any further fire. From another thread, waits for an action of this timer that is
    /// running to return, so no action starts or runs once it returns; from inside the timer's own
    /// action (on the loop's thread), returns at once. So do not call it while holding a lock the
    /// action takes, nor let actions on two loops' threads cancel each other's running timers:
    /// each would wait for the other.
    ///
    /// - Returns: whether this call disarmed the timer: `false` if it was cancelled already, is a
    ///   one-shot whose callback has started, or its loop was closed. Decided under the loop's lock.
    @discardableResult
    public func cancel() -> Bool { loop.disarmAndWait(id) }

    /// Whether the timer was cancelled, or is a one-shot that has fired (or whose callback has
    /// started), or its loop was closed: the opposite of Foundation's `isValid`.
    public var isCancelled: Bool { !loop.isArmed(id) }

    // MARK: Reset

    /// Moves the timer's next fire date to `delay` seconds after a fresh read of the loop's clock,
    /// without cancelling it: Foundation's `fireDate` setter, Go's `Timer.Reset`, Node's
    /// `refresh()`, libuv's `uv_timer_again`. A repeating timer starts a new grid there (fires at
    /// the new date, then every interval after it); a debounce is a one-shot reset on every event.
    ///
    /// Ties: the reset timer fires after the timers already due at the same fire date, as if
    /// scheduled now (as libuv and Node order a re-armed timer); reset during a pass, it waits for
    /// a later pass, as a newly armed timer does.
    ///
    /// Threads: callable from any thread and from callbacks, its own included. The loop's lock
    /// decides against a fire on another thread: a reset that returns before the timer's callback
    /// starts wins (the old fire date never fires); a one-shot whose callback has started has
    /// ended, and the reset throws; a repeating timer whose callback is running moves its next
    /// fire date (the running callback finishes).
    ///
    /// - Parameter delay: seconds from now, ≥ 0 and finite (0 fires on the next pass).
    /// - Throws: ``CadenceError/invalidArgument`` for NaN, infinite or negative `delay`;
    ///   ``CadenceError/alreadyCancelled`` if the timer was cancelled or is a one-shot that has
    ///   fired (or whose callback has started); ``CadenceError/badHandle`` after the loop's
    ///   ``Loop/close()``. When it throws, the timer is left as it was.
    public func reset(after delay: Double) throws(CadenceError) {
        do {
            try loop.reset(id, delay: try nanoseconds(fromSeconds: delay, allowZero: true, argument: "delay"))
        } catch { throw error.in("ScheduledTimer.reset(after:)") }
    }

    // MARK: Introspection

    /// The timer's next fire date, on the scale of ``TimerTick/fireDate`` (wall-clock time derived
    /// from the loop's monotonic clock; virtual seconds on a virtual loop): Foundation's
    /// `fireDate`, asyncio's `TimerHandle.when()`. During a repeating timer's callback it is
    /// already the following grid point. Nil once the timer is no longer valid (cancelled, a
    /// one-shot that has fired or whose callback has started, or its loop closed).
    public var fireDate: Date? { loop.schedule(of: id).map { Date(timeIntervalSince1970: $0.fireDate) } }

    /// The seconds between fire dates, 0 for a one-shot (Foundation's `timeInterval`); nil once
    /// the timer is no longer valid (see ``fireDate``).
    ///
    /// Seconds whichever form scheduled the timer, as in C and Python: one name for one concept
    /// rather than a second, `Duration`-typed property beside it. `Duration.seconds(_:)` makes a
    /// `Duration` of it (to the nearest attosecond of the `Double`).
    public var interval: Double? { loop.schedule(of: id)?.interval }

    /// The seconds of allowed lateness the timer was scheduled with (Foundation's `tolerance`);
    /// nil once the timer is no longer valid (see ``fireDate``). Seconds, as ``interval`` is.
    public var tolerance: Double? { loop.schedule(of: id)?.tolerance }

    /// The next fire date in seconds (without `Date`'s rounding), interval and tolerance, in one
    /// read: for the C API.
    package var schedule: (fireDate: Double, interval: Double, tolerance: Double)? { loop.schedule(of: id) }

    /// Whether both name the same timer (a repeating timer's copies share one owner; equality
    /// reads only the loop and the timer's id).
    public static func == (lhs: ScheduledTimer, rhs: ScheduledTimer) -> Bool {
        lhs.loop === rhs.loop && lhs.id == rhs.id
    }

    /// Hashes the timer's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(loop))
        hasher.combine(id)
    }
}

// MARK: Keeping a run until idle going

extension ScheduledTimer {
    /// Lets ``Loop/runUntilIdle(mode:)`` return while this timer is armed (libuv's `uv_unref`,
    /// Node's `timeout.unref()`). The timer still fires as usual while the loop runs; a repeating
    /// one stays unreferenced on every tick. Callable from any thread; calling it twice, or on a
    /// timer that has ended (cancelled, or a one-shot that has fired), does nothing.
    public func unref() { _ = loop.setReferenced(id, false) }

    /// Makes this timer keep ``Loop/runUntilIdle(mode:)`` going again while it is armed, as it
    /// did when it was scheduled (libuv's `uv_ref`, Node's `timeout.ref()`). Does nothing on a
    /// timer that has ended.
    public func ref() { _ = loop.setReferenced(id, true) }

    /// Whether the timer is armed and referenced, so that it keeps a run until idle in one of its
    /// modes going (libuv's `uv_has_ref`, Node's `timeout.hasRef()`); false once it has ended.
    public var hasRef: Bool { loop.isReferenced(id) }
}
