/// One subscriber of a timer publisher. Cancelling it stops delivery to this subscriber alone;
/// the timer keeps running for the others (and, for a connectable publisher, until its
/// connection is cancelled).
///
/// A `TimerSubscription` does not cancel itself when released; ``TimerPublisher/sink(receiveValue:)``
/// wraps one in an ``AnyCancellable`` that does.
// Unchecked: `isActive` is guarded by its broadcast's lock, and `broadcast` is a weak reference,
// which the runtime reads and clears atomically.
public final class TimerSubscription: Cancellable, @unchecked Sendable {
    /// Weak: the broadcast holds its subscribers, and what keeps a broadcast alive is its publisher
    /// or its running timer; without either it can never tick again.
    private weak var broadcast: TimerBroadcast?
    let receive: @Sendable (TimerTick) -> Void
    /// Guarded by the broadcast's lock.
    var isActive = true

    init(broadcast: TimerBroadcast, receive: @escaping @Sendable (TimerTick) -> Void) {
        self.broadcast = broadcast
        self.receive = receive
    }

    /// Stops delivery to this subscriber. No tick starts for it once this returns. On an
    /// autoconnect publisher, cancelling the last subscriber stops the timer.
    ///
    /// - Returns: whether this call cancelled it (`false` if it was cancelled already).
    @discardableResult
    public func cancel() -> Bool { broadcast?.unsubscribe(self) ?? false }

    /// Whether the subscription was cancelled.
    public var isCancelled: Bool { !(broadcast?.isSubscribed(self) ?? false) }
}
