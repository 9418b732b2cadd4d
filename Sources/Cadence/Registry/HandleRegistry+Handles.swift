/// One handle life for every kind, as the C layer sees it: cancel, release, detach, read. A
/// handle is stored in one of two places, the registry's slots (subscriptions, connections,
/// countdowns, pollers: ``RegisteredWork``) or the slots of its loop's timer queues (scheduled
/// timers: HandleRegistry+Timers.swift); which one is the registry's business, decided here by the
/// handle's form and by nobody else.
extension HandleRegistry {
    /// Cancels what a live handle names: nil for a dead handle, else whether this call stopped
    /// it and, `handingBack` (`cadence_cancel_steal`), the key of its handler handed back
    /// instead of its end (``TimerHandler/handBackKey``; 0 when none was). Without
    /// `handingBack`, the handler's end comes as ``TimerHandler/ended()``. A callback of it
    /// running on another thread is waited for first; from its own callback, nothing is handed
    /// back and the end follows that callback.
    @inline(__always)
    package func cancel(_ id: UInt64, handingBack: Bool) -> (stopped: Bool, key: Int)? {
        Self.isTimer(id) ? cancelTimer(id, stealing: handingBack) : cancelWork(id, handingBack: handingBack)
    }

    /// ``cancel(_:handingBack:)`` without handing back: nil for a dead handle, else whether this
    /// call stopped it.
    package func cancel(_ id: UInt64) -> Bool? { cancel(id, handingBack: false)?.stopped }

    /// Releases a handle (gives it up): a one-shot is left to fire, a detached handle's work goes
    /// on, anything else stops (its handler's end comes inside the call). Nil for a dead handle,
    /// else whether the release stopped work that was still going.
    @inline(__always)
    package func release(_ id: UInt64) -> Bool? {
        Self.isTimer(id) ? cancelTimer(id, givingUp: true)?.stopped : releaseWork(id)
    }

    /// Detaches a live handle: releasing it then leaves its work going. False for a dead handle.
    package func detach(_ id: UInt64) -> Bool {
        Self.isTimer(id) ? detachTimer(id) : detachWork(id)
    }

    /// Whether what a live handle names has ended (cancelled, a one-shot fired, a countdown
    /// finished); nil for a dead handle.
    package func isCancelled(_ id: UInt64) -> Bool? {
        Self.isTimer(id) ? timerHasEnded(id) : isWorkCancelled(id)
    }
}

/// The C API's hot calls (starting a scheduled timer, and cancelling or releasing any handle),
/// each one call from the export into the engine, with the registry's look-up and the loop's work
/// inlined behind it: the exports cannot inline across the module boundary, and a call through
/// the class (a metadata look-up, a retain of the shared registry) would cost more than the call
/// itself. A namespace: its static functions need no metadata at run time.
package enum Handles {
    /// ``HandleRegistry/cancel(_:handingBack:)``.
    package static func cancel(_ id: UInt64, handingBack: Bool) -> (stopped: Bool, key: Int)? {
        HandleRegistry.shared.cancel(id, handingBack: handingBack)
    }

    /// ``HandleRegistry/release(_:)``.
    package static func release(_ id: UInt64) -> Bool? { HandleRegistry.shared.release(id) }
}
