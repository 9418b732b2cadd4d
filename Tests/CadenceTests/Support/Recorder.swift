import Synchronization

/// Values collected by callbacks, which are `@Sendable` (a loop may run them on its own thread):
/// a `Mutex` instead of a captured `var`.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    init() {}

    func append(_ value: Value) { storage.withLock { $0.append(value) } }

    /// The values so far, in order.
    var values: [Value] { storage.withLock { $0 } }

    var count: Int { storage.withLock { $0.count } }

    var isEmpty: Bool { count == 0 }
}

/// A value shared with `@Sendable` callbacks, read and written under a `Mutex`.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// Changes the value under the lock and returns what `body` returns.
    @discardableResult
    func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { storage.withLock { body(&$0) } }
}
