import Synchronization

/// The bookkeeping every stream subscription needs: deliver events in order to one receiver, stop
/// for good on cancel or after `.finished`, and cancel the timers it owns exactly once. A receiver
/// that calls a C function has the userdata's ``HandlerLife``: the gate runs each event inside
/// it, and ends it on cancel. The receiver is let go of when the subscription ends, so that a
/// cancelled subscription kept in a variable keeps nothing the receiver captured.
final class SubscriptionGate<Output: Sendable>: Cancellable, Sendable {
    typealias Receive = @Sendable (StreamEvent<Output>) -> Void
    private struct State {
        var receive: Receive?  // nil once closed
        var timers: [any Cancellable] = []
        var isOpen: Bool { receive != nil }
    }

    private let state: LockedState<State>
    /// Whether the scheduler was closed: then the subscription has ended with its timers.
    private let schedulerClosed: @Sendable () -> Bool
    let life: HandlerLife?
    /// Runs after the `.finished` event has been delivered.
    private let onFinish: @Sendable () -> Void
    /// The settings of the stream subscribed to, read through the subscription's handle (a
    /// countdown's deadline and tick, not the countdown, which holds its loop); nil when nothing
    /// asks.
    let stream: (any Sendable)?

    init(_ receive: @escaping @Sendable (StreamEvent<Output>) -> Void, on scheduler: some Scheduler,
         life: HandlerLife? = nil, stream: (any Sendable)? = nil, onFinish: @escaping @Sendable () -> Void = {}) {
        state = LockedState(State(receive: receive))
        schedulerClosed = { [weak scheduler] in scheduler?.hasClosedLoop ?? true }
        self.life = life
        self.stream = stream
        self.onFinish = onFinish
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

    /// Closes; false if it had ended already (closed, finished, or its scheduler closed). Once the
    /// timers' cancels have returned (a callback on another thread waited for), the userdata of
    /// a C receiver is released (after the callback, when it cancels its own subscription).
    @discardableResult
    func cancel() -> Bool { cancel(handingBack: false).stopped }

    /// ``cancel()``; `handingBack`, the handler's key comes back as `key` instead of its end
    /// (``HandlerLife/finish(handingBack:)``).
    func cancel(handingBack: Bool) -> (stopped: Bool, key: Int) {
        // Closed before: by another cancel, which releases; by `finish()`, whose last call ends
        // the userdata; or with its loop, whose destroy releases.
        guard close() != nil else { return (false, 0) }
        let stopped = !schedulerClosed()  // read first: the release may destroy the loop
        return (stopped, life?.finish(handingBack: handingBack) ?? 0)
    }
    var isCancelled: Bool { isClosed }

    /// Sends a value if the subscription is still open.
    func send(_ value: Output) {
        if let receive = state.withLock({ $0.receive }) {
            life.run {
                receive(.value(value))
                return false
            }
        }
    }

    /// Sends `.finished` once, the registration's last call, and ends the subscription.
    func finish() {
        guard let receive = close() else { return }
        life.run {
            receive(.finished)
            return true
        }
        onFinish()
    }

    /// Ends the subscription without an event, letting go of the receiver; returns the receiver
    /// if this call ended it (nil if it had ended), for ``finish()``'s last event. The timers are
    /// cancelled after the lock, which a callback of theirs may be waiting for.
    @discardableResult
    func close() -> Receive? {
        let closed: (receive: Receive, timers: [any Cancellable])? = state.withLock { state in
            guard let receive = state.receive else { return nil }
            defer { state = State() }
            return (receive, state.timers)
        }
        closed?.timers.forEach { $0.cancel() }
        return closed?.receive
    }

    /// The cancellable handed to the subscriber.
    var cancellable: AnyCancellable { AnyCancellable(self) }
}

extension SubscriptionGate: RegisteredWork {
    /// Events name the subscription (a C countdown) as their source.
    var namesItsHandle: Bool { true }
    /// Nothing to do: only an ``AnyCancellable`` around the gate cancels when given up.
    func detach() {}
    /// Giving up the subscription cancels it.
    func giveUp() -> Bool { !isCancelled && cancel() }
    /// Ends the userdata of a C receiver.
    func endWithLoop() { life?.finish() }
    /// Closes without a release call.
    func abandon() {
        life?.abandon()
        close()
    }
    /// Closes, handing the key back.
    func cancelHandingBack() -> (stopped: Bool, key: Int) { cancel(handingBack: true) }
}
