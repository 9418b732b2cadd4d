import Dispatch

/// Runs `body`, which blocks for long (real-clock loops), on a thread of its own rather than one
/// of the system's pool, and returns what it returned.
///
/// Swift Testing runs tests on the pool, whose threads on Linux are also Swift concurrency's and
/// Dispatch's global queues': a test that blocks two of them on this 2-core machine stalls every
/// other test until libdispatch adds a thread (one per 2 s of being blocked), long enough for a
/// 10-second `withTimeout` elsewhere to expire under load.
func offThePool<T>(_ body: @escaping () -> T) async -> T {
    let box = UncheckedBox<T?>(nil)
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let work = UncheckedBox(body)
        DispatchQueue(label: "cadence.tests.blocking").async {
            box.value = work.value()
            done.resume()
        }
    }
    return box.value!
}

/// A value handed to one thread and read back after it finished (the continuation orders them).
private final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
