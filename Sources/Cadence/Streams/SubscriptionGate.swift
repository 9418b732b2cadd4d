import Synchronization

/// The bookkeeping every stream subscription needs: deliver events in order to one receiver, stop
/// for good on cancel or after `.finished`, and cancel the timers it owns exactly once.
final class SubscriptionGate<Output: Sendable>: Cancellable, Sendable {
    private struct State {
        var isOpen = true
        var timers: [any Cancellable] = []
    }

    private let state = Mutex(State())
    private let receive: @Sendable (StreamEvent<Output>) -> Void
    /// Whether the scheduler was closed: then the subscription has ended with its timers.
    private let schedulerClosed: @Sendable () -> Bool

    init(_ receive: @escaping @Sendable (StreamEvent<Output>) -> Void, on scheduler: some Scheduler) {
        self.receive = receive
        schedulerClosed = { [weak scheduler] in scheduler?.hasClosedLoop ?? true }
    }

    /// Adds a timer to cancel when the subscription ends (at once if it has ended).
    func own(_ timer: any Cancellable) {
        let closed = state.withLock { state -> Bool in
            if state.isOpen { state.timers.append(timer) }
            return !state.isOpen
        }
        if closed { timer.cancel() }
    }

    var isClosed: Bool { state.withLock { !$0.isOpen } || schedulerClosed() }

    /// Closes; false if it had ended already (closed, finished, or its scheduler closed).
    @discardableResult
    func cancel() -> Bool { close() && !schedulerClosed() }
    var isCancelled: Bool { isClosed }

    /// Sends a value if the subscription is still open.
    func send(_ value: Output) {
        if state.withLock({ $0.isOpen }) { receive(.value(value)) }
    }

    /// Sends `.finished` once and ends the subscription.
    func finish() {
        if close() { receive(.finished) }
    }

    /// Ends the subscription without an event; returns whether this call ended it. The timers
    /// are cancelled after the lock, which a callback of theirs may be waiting for.
    @discardableResult
    func close() -> Bool {
        let owned: [any Cancellable]? = state.withLock { state in
            guard state.isOpen else { return nil }
            state.isOpen = false
            defer { state.timers = [] }
            return state.timers
        }
        owned?.forEach { $0.cancel() }
        return owned != nil
    }

    /// The cancellable handed to the subscriber.
    var cancellable: AnyCancellable { AnyCancellable(self) }
}
