import Cadence
import Synchronization

/// What a `cadence_cancellable` handle stands for: the Swift object once it exists, plus the
/// handle's own cancel state, so that a callback may cancel its source from its very first call,
/// even before the function that created it has returned (a past countdown, or a timer firing on
/// the loop's own thread).
final class CancellableHandle: @unchecked Sendable {
    /// The handle's id: set once, before anything can call back.
    var id: UInt64 = 0
    private let cancelRequested = Atomic(false)
    private let lock = Lock()
    private var target: AnyObject?  // guarded by `lock`

    /// The object behind the handle, nil until it is attached.
    var object: AnyObject? {
        lock.lock()  // not `withLock`: see `HandleTable.lock`
        defer { lock.unlock() }
        return target
    }

    /// Whether callbacks may still be delivered: false once cancelled through the handle.
    var isLive: Bool { !cancelRequested.load(ordering: .acquiring) }

    /// The end of the registration's userdata, when its loop has a release function; set before
    /// the handle is attached.
    var life: CallbackLife?
    /// Set by cadence_cancellable_detach: releasing the handle then leaves the work running.
    let detached = Atomic(false)

    /// Puts the object behind the handle, cancelling it at once if the handle was cancelled first.
    func attach(_ object: AnyObject) {
        lock.lock()
        target = object
        lock.unlock()
        if !isLive {
            (object as? any Cancellable)?.cancel()
            life?.finish()
        }
    }

    /// Cancels; false if it was cancelled already (or, for a one-shot, has fired). The engine's
    /// cancel decides (it is atomic); the handle's flag only stands in for it before the object
    /// is attached, so that a cancel then and one after it cannot both succeed. Once the engine's
    /// cancel has returned (no callback running on another thread), the userdata is released.
    func cancel() -> Bool {
        let first = !cancelRequested.exchange(true, ordering: .acquiringAndReleasing)
        guard first else { return false }
        guard let object = object as? any Cancellable else { return true }
        let cancelled = object.cancel()
        life?.finish()
        return cancelled
    }

    /// Whether it was cancelled, through this handle or otherwise.
    var isCancelled: Bool { !isLive || ((object as? any Cancellable)?.isCancelled ?? false) }

    /// What releasing the handle does: what only this handle can stop is stopped, unless the
    /// handle was detached; connections go on (see cadence.h; scheduled timers have no handle
    /// object, see HandleTable+Timers.swift).
    func release() {
        if !detached.load(ordering: .acquiring) && !(object is TimerConnection) { _ = cancel() }
    }
}

/// What a callback knows of its handle: the id to report as its source, and whether the handle
/// was cancelled. The handle is held weakly, because the handle holds the object that holds the
/// callback; a released handle of a timer that keeps running reads as live.
struct CallbackSource: @unchecked Sendable {
    let id: UInt64
    private weak var handle: CancellableHandle?

    init(_ handle: CancellableHandle) {
        id = handle.id
        self.handle = handle
    }

    var isLive: Bool { handle?.isLive ?? true }
}
