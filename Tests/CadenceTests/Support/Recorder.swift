@testable import Cadence

// The engine's pthread lock, not `Synchronization.Mutex`, whose locking ThreadSanitizer does not
// see on Linux (it reported races on values read and written only under one).

/// Values collected by callbacks, which are `@Sendable` (a loop may run them on its own thread):
/// a lock instead of a captured `var`.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = LockedState<[Value]>([])

    init() {}

    func append(_ value: Value) { storage.withLock { $0.append(value) } }

    /// The values so far, in order.
    var values: [Value] { storage.withLock { $0 } }

    var count: Int { storage.withLock { $0.count } }

    var isEmpty: Bool { count == 0 }
}

/// A value shared with `@Sendable` callbacks, read and written under a lock.
final class Shared<Value: Sendable>: Sendable {
    private let storage: LockedState<Value>

    init(_ value: Value) { storage = LockedState(value) }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// Changes the value under the lock and returns what `body` returns.
    @discardableResult
    func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { storage.withLock { body(&$0) } }
}
