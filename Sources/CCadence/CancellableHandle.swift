import Cadence
import Synchronization

/// What a `cadence_cancellable` handle stands for: the Swift object once it exists, plus the
/// handle's own cancel state, so that a callback may cancel its source from its very first call,
/// even before the function that created it has returned (a past countdown, or a timer firing on
/// the loop's own thread).
///
/// The handle table holds the only lasting reference to this, and this the handle's reference to
/// the engine's object: `cadence_cancellable_release` drops both, and the engine's own rule for
/// a reference given up applies (a subscription, countdown or poller cancels; a connection stops
/// its timer when no other handle names it), unless the handle was detached.
///
/// A detached handle whose work calls back (a subscription, a countdown, a poller) keeps its slot
/// once released, because its callbacks name it as their source (a poll is finished through it):
/// it is marked released, and freed when the work ends (``endIfReleased()``).
final class CancellableHandle: @unchecked Sendable {
    /// The handle's id: set once, before anything can call back.
    var id: UInt64 = 0
    private let cancelRequested = Atomic(false)
    private let detachRequested = Atomic(false)
    private let released = Atomic(false)
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

    /// Puts the object behind the handle, cancelling it at once if the handle was cancelled first
    /// and detaching it if it was detached first (both from a callback running before the call
    /// that made the handle returned).
    func attach(_ object: AnyObject) {
        lock.lock()
        target = object
        lock.unlock()
        if detachRequested.load(ordering: .acquiring) { (object as? any Detachable)?.detach() }
        if !isLive {
            (object as? any Cancellable)?.cancel()
            life?.finish()
        }
    }

    /// Lets the work go on once the handle is released (`cadence_cancellable_detach`).
    func detach() {
        detachRequested.store(true, ordering: .releasing)
        (object as? any Detachable)?.detach()
    }

    /// Whether releasing keeps the slot: detached work whose callbacks name this handle.
    var keepsSlotWhenReleased: Bool {
        detachRequested.load(ordering: .acquiring) && !(object is TimerConnection)
    }

    /// Marks a handle that keeps its slot as released; false if it was released already.
    func markReleased() -> Bool { !released.exchange(true, ordering: .acquiringAndReleasing) }

    /// Frees the slot of a released handle whose work has ended (cancelled, or a countdown
    /// finished); does nothing for a handle the program still holds. Not under the table's lock.
    func endIfReleased() {
        if released.load(ordering: .acquiring) { _ = HandleTable.shared.remove(id, kind: .cancellable) }
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

    /// Whether giving up the handle cancels its work with a userdata to release: a subscription,
    /// countdown or poller with a ``life`` that was not detached. Cancelled through the handle
    /// before it is freed, so that the release comes inside `cadence_cancellable_release`, once a
    /// callback running on another thread has returned, whatever else holds the engine's object.
    var cancelsWhenReleased: Bool { life != nil && !detachRequested.load(ordering: .acquiring) }
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

    /// Frees the handle if it was released detached: its work has just ended.
    func endIfReleased() { handle?.endIfReleased() }
}
