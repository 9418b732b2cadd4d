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
    public func cancel() -> Bool {
        guard let broadcast else {
            subscriber.life?.finish()  // ended with its publisher
            return false
        }
        let outcome = broadcast.unsubscribe(subscriber)
        // Only the call that removed it releases: a second cancel, one racing it included, must
        // not release before the first has waited for a tick being delivered.
        if outcome.removed { subscriber.life?.finish() }
        return outcome.stopped
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
    let life: UserdataLife?
    /// Guarded by the broadcast's lock.
    var isActive: Bool { receive != nil }

    init(_ receive: @escaping @Sendable (TimerTick) -> Void, life: UserdataLife? = nil) {
        self.receive = receive
        self.life = life
    }
}

extension TimerBroadcast {
    /// A subscription that calls a C function (`cadence_publisher_subscribe`; one without a
    /// function pointer calls the loop's fire function), its ticks reporting `source` (its
    /// handle), and calling the loop's release function, if one is set now, with the userdata
    /// once it ends; not subscribed yet (``add(_:)``).
    ///
    /// - Throws: ``CadenceError/badHandle`` for a closed loop; ``CadenceError/invalidArgument``
    ///   for no function when the loop has no fire function.
    func functionSubscription(_ function: TimerFunction, source: UInt64) throws(CadenceError) -> TimerSubscription {
        guard !loop.isClosed else { throw .loopClosed() }
        let functions = loop.functions
        guard function.invoke != nil, let pointer = function.function ?? functions.fire else {
            throw .nullCallback()
        }
        let call = TimerFunction(invoke: function.invoke, function: pointer, userdata: function.userdata)
        let life = UserdataLife.make(functions.release, call.userdata)
        let subscriber = TimerSubscriber({ tick in
            life.run {
                if let invoke = call.invoke, let function = call.function {
                    invoke(function, call.userdata, source, tick.fireDateSeconds, UInt64(tick.skipped), 0)
                }
                return false
            }
        }, life: life)
        return TimerSubscription(broadcast: self, subscriber: subscriber)
    }
}
