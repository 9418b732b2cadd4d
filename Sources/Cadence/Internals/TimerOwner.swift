import Synchronization

/// What every copy of a repeating ``ScheduledTimer`` shares: when the last copy goes away, this
/// deinitializes and cancels the timer (as ``ScheduledTimer/cancel()``, waiting for a callback
/// running on another thread), unless ``detach()`` was called. A one-shot has none: it is
/// fire-and-forget, and its start allocates nothing.
final class TimerOwner: Sendable {
    let loop: Loop
    private let id: TimerID
    private let detached = Atomic(false)

    init(loop: Loop, id: TimerID) {
        self.loop = loop
        self.id = id
    }

    func detach() { detached.store(true, ordering: .releasing) }

    deinit {
        // On a closed loop, or for a timer already cancelled, this finds nothing armed.
        if !detached.load(ordering: .acquiring) { _ = loop.disarmAndWait(id) }
    }
}
