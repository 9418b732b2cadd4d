import Synchronization

/// Waits until `condition` holds, checking every millisecond, for at most `timeout` (then
/// returns false): for a state another thread reaches, without a blind sleep.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: timeout)
    while !condition() {
        guard clock.now < end else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// A value behind a lock, as a class: closures that tasks run capture it by reference.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
