import Synchronization

/// One subscriber of a timer publisher, made by `subscribe` (and wrapped by `sink`). Cancelling it
/// stops delivery to this subscriber alone; the timer keeps running for the others (and, for a
/// connectable publisher, until its connection is cancelled or given up).
///
/// Giving it up (its last reference going away) cancels it, as ``cancel()`` does, so the last
/// subscription of an autoconnect publisher given up stops its timer; ``detach()`` keeps it
/// delivering without a reference (<doc:Lifetimes>). The publisher holds only what delivers the
/// ticks, never this object.
// Unchecked: `broadcast` is a weak reference, which the runtime reads and clears atomically.
public final class TimerSubscription: Cancellable, Detachable, @unchecked Sendable {
    /// Weak: what keeps a broadcast alive is its publisher, a connection handle or its running
    /// timer; without any of them it can never tick again.
    private weak var broadcast: TimerBroadcast?
    /// What the broadcast delivers to: it outlives this object when detached.
    let subscriber: TimerSubscriber
    private let detached = Atomic(false)

    init(broadcast: TimerBroadcast, subscriber: TimerSubscriber) {
        self.broadcast = broadcast
        self.subscriber = subscriber
    }

    deinit {
        if !detached.load(ordering: .acquiring) { _ = broadcast?.unsubscribe(subscriber) }
    }

    /// Stops delivery to this subscriber. No tick starts for it once this returns. On an
    /// autoconnect publisher, cancelling the last subscriber stops the timer. A subscription that
    /// calls a C function then has its userdata released (once its running call has returned,
    /// when that call is the one cancelling it).
    ///
    /// - Returns: whether this call cancelled it (`false` if it was cancelled already).
    @discardableResult
    public func cancel() -> Bool { cancel(handingBack: false).stopped }

    /// ``cancel()``; `handingBack`, the handler's key comes back as `key` instead of its end
    /// (``HandlerLife/finish(handingBack:)``).
    func cancel(handingBack: Bool) -> (stopped: Bool, key: Int) {
        guard let broadcast else {
            subscriber.life?.finish()  // ended with its publisher
            return (false, 0)
        }
        let outcome = broadcast.unsubscribe(subscriber)
        // Only the call that removed it releases: a second cancel, one racing it included, must
        // not release before the first has waited for a tick being delivered.
        let key = outcome.removed ? subscriber.life?.finish(handingBack: handingBack) ?? 0 : 0
        return (outcome.stopped, key)
    }

    /// Keeps the subscription delivering once this object is given up: afterwards its deinit does
    /// not cancel it, and it lasts until ``cancel()`` (through a reference kept after all), its
    /// publisher can never tick again, or the loop is closed. Calling it again does nothing.
    public func detach() { detached.store(true, ordering: .releasing) }

    /// Whether the subscription was cancelled.
    public var isCancelled: Bool { !(broadcast?.isSubscribed(subscriber) ?? false) }
}

/// What a broadcast delivers to: the receiving closure while it is still subscribed. Held by the
/// broadcast, so that a ``TimerSubscription`` given up deinitializes; the closure is let go of
/// when it is unsubscribed, so that a cancelled subscription keeps nothing the closure captured.
// Unchecked: `receive` is guarded by its broadcast's lock.
final class TimerSubscriber: @unchecked Sendable {
    /// Guarded by the broadcast's lock; nil once unsubscribed.
    var receive: (@Sendable (TimerTick) -> Void)?
    /// The userdata's end, for a subscriber that calls a C function with a release function.
    let life: HandlerLife?
    /// Guarded by the broadcast's lock.
    var isActive: Bool { receive != nil }

    init(_ receive: @escaping @Sendable (TimerTick) -> Void, life: HandlerLife? = nil) {
        self.receive = receive
        self.life = life
    }
}

extension TimerBroadcast {
    /// A subscription of a C registration's handler (`cadence_publisher_subscribe`), as armed on
    /// the loop's host functions set now (``PlainTimerHandler/armed(_:loop:)``: one without a
    /// callback of its own calls the loop's fire function), its ticks naming `source` (its
    /// handle), its end (``HandlerLife``) coming once; not subscribed yet (``add(_:)``).
    ///
    /// - Throws: ``CadenceError/badHandle`` for a closed loop; what the handler's `armed` throws.
    func handlerSubscription(_ handler: PlainHandler, source: UInt64) throws(CadenceError) -> TimerSubscription {
        guard !loop.isClosed else { throw .loopClosed() }
        let (words, type) = try handler.type.armed(handler.words, loop: loop.functionWords)
        let life = HandlerLife.make((words, type))
        let subscriber = TimerSubscriber({ tick in
            life.run {
                type.fired(words, tick, timer: source, final: false)
                return false
            }
        }, life: life)
        return TimerSubscription(broadcast: self, subscriber: subscriber)
    }
}
