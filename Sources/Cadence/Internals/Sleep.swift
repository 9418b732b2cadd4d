import Synchronization

/// One ``LoopClock/sleep(until:tolerance:)``: the sleeping task's continuation and its timer on
/// the loop, and the one decision between the three ways a sleep ends (its timer fires, its task
/// is cancelled, its loop is closed), taken under a lock of its own so that it ends exactly once.
///
/// The loop's lock is never held while this lock is taken: the loop runs a timer's action and
/// releases it outside its lock. A cancel disarms without waiting for a running action (the loop's
/// `cancel` waits for one): the action only takes this lock, finds the sleep ended and returns.
final class Sleep: Sendable {
    private enum State {
        /// Not yet suspended.
        case starting
        /// Suspended; `timer` is nil until the timer is armed.
        case waiting(UnsafeContinuation<Void, any Error>, timer: TimerID?)
        /// Cancelled, resumed or failed: the continuation has been (or is being) resumed.
        case ended
    }

    private let loop: Loop
    private let state = Mutex(State.starting)

    init(loop: Loop) { self.loop = loop }

    /// Arms the sleep's timer, or ends the sleep at once if its task was cancelled already.
    ///
    /// - Parameters:
    ///   - continuation: resumed once, by whichever of fire, cancel or close comes first.
    ///   - deadline: the fire date, in the loop's monotonic nanoseconds.
    ///   - tolerance: nanoseconds of allowed lateness.
    func start(_ continuation: UnsafeContinuation<Void, any Error>, at deadline: Nanoseconds, tolerance: Nanoseconds) {
        let cancelled = state.withLock { state -> Bool in
            guard case .starting = state else { return true }
            state = .waiting(continuation, timer: nil)
            return false
        }
        if cancelled { return continuation.resume(throwing: CancellationError()) }
        // Armed outside the lock: a timer released by a failing arm or by a close calls `released`.
        let token = Token(sleep: self)
        let timer: TimerID
        do {
            timer = try loop.arm(delay: 0, at: deadline, interval: 0, tolerance: tolerance,
                                 modeIndex: TimerQueues.commonIndex, action: .closure { _ in token.sleep.fire() })
        } catch {
            return end(throwing: error.in("LoopClock.sleep(until:tolerance:)"))
        }
        let cancelledMeanwhile = state.withLock { state -> Bool in
            switch state {
            case .waiting(let continuation, timer: nil):
                state = .waiting(continuation, timer: timer)
                return false
            case .waiting, .starting:
                return false
            case .ended:
                return true
            }
        }
        // A cancel that came while the timer was being armed could not disarm it.
        if cancelledMeanwhile { loop.disarm(timer) }
    }

    /// The timer fired: ends the sleep normally, unless it was cancelled first.
    private func fire() {
        if let (continuation, _) = take() { continuation.resume() }
    }

    /// The task was cancelled: ends the sleep with `CancellationError` and frees its timer now.
    func cancel() {
        let taken: (UnsafeContinuation<Void, any Error>, TimerID?)? = state.withLock { state in
            if case .starting = state {
                state = .ended  // `start` throws at once
                return nil
            }
            return take(&state)
        }
        guard let (continuation, timer) = taken else { return }
        if let timer { loop.disarm(timer) }
        continuation.resume(throwing: CancellationError())
    }

    /// The loop let go of the timer without firing it (closed): ends the sleep with its error.
    fileprivate func released() {
        end(throwing: CadenceError.loopClosed().in("LoopClock.sleep(until:tolerance:)"))
    }

    private func end(throwing error: any Error) {
        if let (continuation, _) = take() { continuation.resume(throwing: error) }
    }

    /// Ends a waiting sleep and returns what it waited with; nil if it had ended already.
    private func take() -> (UnsafeContinuation<Void, any Error>, TimerID?)? {
        state.withLock { take(&$0) }
    }

    private func take(_ state: inout State) -> (UnsafeContinuation<Void, any Error>, TimerID?)? {
        guard case .waiting(let continuation, let timer) = state else { return nil }
        state = .ended
        return (continuation, timer)
    }

    /// Owned by the timer's action alone, so that its release tells when the loop let go of the
    /// timer: after it fired (the sleep has ended), after a cancel (ended too), or when the loop
    /// was closed or the arm failed (still waiting: ended with the loop's error).
    private final class Token: Sendable {
        let sleep: Sleep
        init(sleep: Sleep) { self.sleep = sleep }
        deinit { sleep.released() }
    }
}
