/// The bookkeeping every stream subscription needs: deliver events in order to one receiver, stop
/// for good on cancel or after `.finished`, and cancel the timers it owns exactly once.
final class SubscriptionGate<Output: Sendable>: Cancellable, @unchecked Sendable {
    private let lock = Lock()
    private let receive: @Sendable (StreamEvent<Output>) -> Void
    // Guarded by `lock`:
    private var isOpen = true
    private var timers: [any Cancellable] = []

    init(_ receive: @escaping @Sendable (StreamEvent<Output>) -> Void) { self.receive = receive }

    /// Adds a timer to cancel when the subscription ends (at once if it has ended).
    func own(_ timer: any Cancellable) {
        let closed = lock.withLock { () -> Bool in
            if isOpen { timers.append(timer) }
            return !isOpen
        }
        if closed { timer.cancel() }
    }

    var isClosed: Bool { lock.withLock { !isOpen } }

    func cancel() { close() }
    var isCancelled: Bool { isClosed }

    /// Sends a value if the subscription is still open.
    func send(_ value: Output) {
        if lock.withLock({ isOpen }) { receive(.value(value)) }
    }

    /// Sends `.finished` once and ends the subscription.
    func finish() {
        if close() { receive(.finished) }
    }

    /// Ends the subscription without an event; returns whether this call ended it.
    @discardableResult
    func close() -> Bool {
        let owned: [any Cancellable]? = lock.withLock {
            guard isOpen else { return nil }
            isOpen = false
            defer { timers = [] }
            return timers
        }
        owned?.forEach { $0.cancel() }
        return owned != nil
    }

    /// The cancellable handed to the subscriber.
    var cancellable: AnyCancellable { AnyCancellable(self) }
}
