import FoundationEssentials

/// A connectable publisher of a repeating timer's fire dates, like Foundation's
/// `Timer.TimerPublisher` (`Timer.publish(every:tolerance:on:in:)`).
///
/// Creating or subscribing does nothing: ``connect()`` starts the timer, and cancelling the
/// connection stops it for good. The publisher goes idle → connected → cancelled and never back;
/// a new publisher is the only restart. Several subscribers share the one timer and receive the
/// same fire dates. ``autoconnect()`` gives a publisher that connects on its first subscriber.
///
/// The timer's first fire date is one interval after ``connect()``; later ones stay on that grid
/// (see ``Loop``). Values are delivered on the thread running the loop.
///
/// Giving up the publisher (its last reference going away) frees only the publisher: a connected
/// timer keeps running and delivering while a reference to its ``TimerConnection`` is held (or
/// the connection was detached). Once nothing can make the timer tick again (the publisher is
/// given up and was never connected, or its connection was cancelled or given up), its
/// subscriptions read as cancelled (``TimerSubscription/isCancelled``). See <doc:Lifetimes>.
public final class TimerPublisher: Sendable {
    /// The loop the timer runs on.
    public let loop: Loop
    /// Seconds between fire dates (also for a publisher made with a `Duration`: see
    /// ``ScheduledTimer/interval``).
    public let interval: Double
    /// Seconds a fire may come after its fire date (never before).
    public let tolerance: Double
    /// The run loop mode the timer is added to.
    public let mode: RunLoopMode
    /// What the timer does about fire dates it missed. A change applies from the next
    /// ``connect()``; a running timer keeps the policy it started with.
    public var missedTicks: MissedTickPolicy {
        get { broadcast.missedTicks }
        set { broadcast.missedTicks = newValue }
    }
    let broadcast: TimerBroadcast

    /// Creates a timer publisher. Nothing is scheduled until ``connect()``.
    ///
    /// - Parameters:
    ///   - interval: seconds between fire dates, > 0 and finite.
    ///   - tolerance: seconds of allowed lateness, ≥ 0 and finite (Apple suggests at least 10 % of
    ///     the interval for a repeating timer).
    ///   - loop: the loop whose runs fire the timer.
    ///   - mode: a mode registered on `loop`: ``RunLoopMode/default`` (the default, as for Apple's
    ///     scheduled timers), ``RunLoopMode/common`` (use it for anything that must keep ticking
    ///     while the loop runs in another common mode) or one added with ``Loop/addMode(_:)`` or
    ///     ``Loop/addCommonMode(_:)``.
    ///   - missedTicks: what a late timer does about the fire dates it missed (default: skip them).
    /// - Throws: ``CadenceError/invalidArgument`` for a bad interval, tolerance or mode name;
    ///   ``CadenceError/unknownMode`` for an unregistered mode; ``CadenceError/badHandle`` for a
    ///   closed loop.
    public convenience init(every interval: Double, tolerance: Double = 0, on loop: Loop,
                            in mode: RunLoopMode = .default, missedTicks: MissedTickPolicy = .skip) throws(CadenceError) {
        let intervalNs: Nanoseconds, toleranceNs: Nanoseconds
        do {
            intervalNs = try nanoseconds(fromSeconds: interval, allowZero: false, argument: "interval")
            toleranceNs = try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance")
        } catch {
            throw error.in(Self.initializer)
        }
        try self.init(interval: (intervalNs, interval), tolerance: (toleranceNs, tolerance), on: loop, in: mode,
                      missedTicks: missedTicks)
    }

    /// The public initializers' name, for their errors.
    static let initializer = "TimerPublisher(every:tolerance:on:in:missedTicks:)"

    /// The initializers' one body, with the interval and tolerance checked: in nanoseconds, and in
    /// seconds as given (for ``interval`` and ``tolerance``).
    init(interval: (Nanoseconds, Double), tolerance: (Nanoseconds, Double), on loop: Loop, in mode: RunLoopMode,
         missedTicks: MissedTickPolicy) throws(CadenceError) {
        let modeIndex: Int
        do { modeIndex = try loop.modeIndex(of: mode) } catch { throw error.in(Self.initializer) }
        self.loop = loop
        self.interval = interval.1
        self.tolerance = tolerance.1
        self.mode = mode
        broadcast = TimerBroadcast(loop: loop, interval: interval.0, tolerance: tolerance.0,
                                   missedTicks: missedTicks, modeIndex: modeIndex, autoconnects: false)
    }

    /// Starts the timer and returns the connection that stops it.
    ///
    /// On a connected publisher, returns the same connection (the same object while a reference
    /// to it is held; no second timer). On a cancelled publisher, or when the loop is closed,
    /// returns a connection that is already cancelled and starts nothing.
    ///
    /// - Returns: the connection. The timer runs while a reference to it is held: the last one
    ///   going away stops the timer, as ``TimerConnection/cancel()`` does, unless
    ///   ``TimerConnection/detach()`` was called.
    public func connect() -> TimerConnection {
        broadcast.connectionHandle()
    }

    /// Subscribes `receiveValue` to the timer's fire dates until the returned cancellable is
    /// cancelled or deinitialized (unless ``AnyCancellable/detach()`` was called). Subscribing
    /// does not start the timer.
    ///
    /// `receiveValue` runs on the thread that runs the loop, which may be the loop's own thread
    /// (``Loop/startThread(mode:)``), so it is `@Sendable`: what it changes must be safe to share.
    public func sink(receiveValue: @escaping @Sendable (Date) -> Void) -> AnyCancellable {
        AnyCancellable(broadcast.subscribe { receiveValue($0.fireDate) })
    }

    /// Subscribes `receiveTick` to full ticks (fire date and skipped-tick count) and returns the
    /// subscription, which delivers until it is cancelled or given up (its deinit cancels it,
    /// unless ``TimerSubscription/detach()`` was called). `receiveTick` runs on the loop's thread,
    /// as for `sink`.
    public func subscribe(_ receiveTick: @escaping @Sendable (TimerTick) -> Void) -> TimerSubscription {
        broadcast.subscribe(receiveTick)
    }

    /// A publisher with the same timer settings that connects when its first subscriber arrives,
    /// cancels the connection when the last one leaves, and connects anew (fresh timer, fresh
    /// grid) for the next first subscriber, like Combine's `autoconnect()`.
    public func autoconnect() -> AutoconnectTimerPublisher {
        AutoconnectTimerPublisher(broadcast: TimerBroadcast(
            loop: loop, interval: broadcast.interval, tolerance: broadcast.tolerance,
            missedTicks: missedTicks, modeIndex: broadcast.modeIndex, autoconnects: true),
            interval: interval, tolerance: tolerance, mode: mode)
    }

    /// Whether a connection is running the timer now.
    public var isConnected: Bool { broadcast.isConnected }

    /// Whether the connection was cancelled (the publisher will never tick again).
    public var isCancelled: Bool { broadcast.isCancelled }

    /// How many subscribers are attached.
    public var subscriberCount: Int { broadcast.subscriberCount }
}

/// A connection returned by ``TimerPublisher/connect()``: cancel it to stop the timer for good.
///
/// Every `connect()` of one publisher returns the same connection. Giving it up (its last
/// reference going away) stops the timer, as ``cancel()`` does; ``detach()`` keeps the timer
/// running without a reference, until a cancel or the loop's ``Loop/close()`` (<doc:Lifetimes>).
public final class TimerConnection: Cancellable, Detachable, Sendable {
    private let broadcast: TimerBroadcast
    /// Which handle of its broadcast this is (see ``TimerBroadcast/connectionGivenUp(number:)``).
    private let number: UInt64

    init(broadcast: TimerBroadcast, number: UInt64) {
        self.broadcast = broadcast
        self.number = number
    }

    deinit { broadcast.connectionGivenUp(number: number) }

    /// Keeps the timer running once the connection is given up: afterwards no deinit of a
    /// connection of this publisher stops it; ``cancel()`` still does. Calling it again does
    /// nothing.
    public func detach() { broadcast.detachConnection() }

    /// Stops the timer for good. Subscribers get no completion, only silence.
    ///
    /// - Returns: whether this call stopped it: `false` if the publisher was cancelled already
    ///   (through any of its connections). For an autoconnect publisher's connection, whether
    ///   this call disarmed the running timer.
    @discardableResult
    public func cancel() -> Bool { broadcast.autoconnects ? broadcast.disconnect() : broadcast.cancelConnection() }

    /// Whether the publisher's connection was cancelled.
    public var isCancelled: Bool { broadcast.isCancelled }

    /// Reads ``isCancelled`` without keeping the connection alive: a release of its C handle
    /// reads it after the connection's deinit (see ``HandleRegistry/release(_:)``).
    var isCancelledReader: () -> Bool { { [broadcast] in broadcast.isCancelled } }
}
