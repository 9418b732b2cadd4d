import Synchronization

/// Something that can be stopped: a subscription, a connection or a timer.
///
/// Mirrors Combine's `Cancellable`, which classes and values alike adopt (``ScheduledTimer`` is a
/// value). Cancelling twice is harmless; the second cancel returns `false`, as `cancel()` does in
/// Python and as `cadence_cancel` reports `CADENCE_EALREADY` in C.
public protocol Cancellable: Sendable {
    /// Stops the work. Once it returns, no callback for it starts. Called from another thread while
    /// one of its callbacks runs on the loop's thread, it waits for that callback to return (so do
    /// not call it while holding a lock that the callback takes); called from inside a callback,
    /// including the one being cancelled, it returns at once.
    ///
    /// - Returns: whether this call stopped the work: `true` for the first cancel of live work,
    ///   `false` if it was cancelled already or had ended on its own (a fired one-shot, a finished
    ///   countdown). Decided atomically: of any number of threads cancelling the same work at
    ///   once, exactly one gets `true`.
    @discardableResult
    func cancel() -> Bool

    /// Whether ``cancel()`` has been called (or the work ended on its own, as a fired one-shot).
    var isCancelled: Bool { get }
}

/// A type-erasing cancellable that cancels when it is deinitialized, like Combine's
/// `AnyCancellable`. Keep it for as long as the work should go on, or ``detach()`` it.
///
/// It is the handle of a `sink` subscription and of a stream's subscription (a ``Countdown``'s,
/// for one): giving it up cancels them (<doc:Lifetimes>).
public final class AnyCancellable: Cancellable, Detachable, Hashable, Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>
    private let inner: (any Cancellable)?
    private let detached = Atomic(false)

    /// Wraps a closure that is called once, on the first ``cancel()`` or on deinit, on whichever
    /// thread that happens (hence `@Sendable`).
    public init(_ cancel: @escaping @Sendable () -> Void) {
        onCancel = Mutex(cancel)
        inner = nil
    }

    /// Wraps another cancellable, so that it is cancelled at the latest when this one is deinitialized.
    public init(_ cancellable: some Cancellable) {
        onCancel = Mutex(nil)
        inner = cancellable
    }

    deinit {
        if !detached.load(ordering: .acquiring) { cancel() }
    }

    /// Lets the work go on once this cancellable is deinitialized: afterwards its deinit cancels
    /// nothing, and ``cancel()`` still does. A wrapped cancellable that stops when given up on its
    /// own (a ``TimerSubscription``, a repeating ``ScheduledTimer``, a ``TimerConnection``, a
    /// ``Poller``) is detached too. Calling it again does nothing.
    public func detach() {
        detached.store(true, ordering: .releasing)
        (inner as? any Detachable)?.detach()
    }

    /// Cancels the wrapped work; further calls do nothing and return `false`.
    ///
    /// - Returns: for a wrapped cancellable, what its ``Cancellable/cancel()`` returns; for a
    ///   closure, whether this call is the one that ran it.
    @discardableResult
    public func cancel() -> Bool {
        if let inner { return inner.cancel() }
        guard let onCancel = onCancel.withLock({ onCancel in
            defer { onCancel = nil }
            return onCancel
        }) else { return false }
        onCancel()
        return true
    }

    /// Whether the wrapped work was cancelled.
    public var isCancelled: Bool { inner?.isCancelled ?? onCancel.withLock { $0 == nil } }

    /// Keeps this cancellable in a collection, as Combine's `store(in:)` does.
    public func store(in set: inout Set<AnyCancellable>) { set.insert(self) }

    /// Identity equality.
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { lhs === rhs }

    /// Identity hash.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
