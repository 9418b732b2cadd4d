import FoundationEssentials

/// A timer publisher that runs exactly while it has subscribers: made by
/// ``TimerPublisher/autoconnect()``.
///
/// The first subscriber starts a timer (first fire one interval later); a subscriber joining late
/// receives the same fire dates as the early ones from then on; when the last subscriber cancels,
/// the timer stops, and the next first subscriber starts a fresh timer on a fresh grid. A
/// subscription given up (deinitialized) cancels, so the timer runs exactly while a subscription
/// is held or detached; giving up the publisher itself changes nothing (<doc:Lifetimes>).
public final class AutoconnectTimerPublisher: Sendable {
    let broadcast: TimerBroadcast
    /// Seconds between fire dates: those of the publisher it was made from.
    public let interval: Double
    /// Seconds a fire may come after its fire date (never before).
    public let tolerance: Double
    /// The run loop mode the timer is added to.
    public let mode: RunLoopMode

    init(broadcast: TimerBroadcast, interval: Double, tolerance: Double, mode: RunLoopMode) {
        self.broadcast = broadcast
        self.interval = interval
        self.tolerance = tolerance
        self.mode = mode
    }

    /// The loop the timer runs on.
    public var loop: Loop { broadcast.loop }

    /// What the timer does about fire dates it missed. A change applies to the next timer
    /// started (by the next first subscriber); a running one keeps its policy.
    public var missedTicks: MissedTickPolicy {
        get { broadcast.missedTicks }
        set { broadcast.missedTicks = newValue }
    }

    /// Subscribes `receiveValue` to the fire dates until the returned cancellable is cancelled or
    /// deinitialized (unless ``AnyCancellable/detach()`` was called). The first subscriber starts
    /// the timer; the last one gone stops it.
    ///
    /// `receiveValue` runs on the thread that runs the loop, which may be the loop's own thread
    /// (``Loop/startThread(mode:)``), so it is `@Sendable`: what it changes must be safe to share.
    public func sink(receiveValue: @escaping @Sendable (Date) -> Void) -> AnyCancellable {
        AnyCancellable(broadcast.subscribe { receiveValue($0.fireDate) })
    }

    /// Subscribes `receiveTick` to full ticks (fire date and skipped-tick count) and returns the
    /// subscription, which delivers until it is cancelled or given up (its deinit cancels it,
    /// unless ``TimerSubscription/detach()`` was called); the last one gone stops the timer.
    /// `receiveTick` runs on the loop's thread, as for `sink`.
    public func subscribe(_ receiveTick: @escaping @Sendable (TimerTick) -> Void) -> TimerSubscription {
        broadcast.subscribe(receiveTick)
    }

    /// Whether a timer is running (there is at least one subscriber and the loop is open).
    public var isConnected: Bool { broadcast.isConnected }

    /// How many subscribers are attached.
    public var subscriberCount: Int { broadcast.subscriberCount }
}
