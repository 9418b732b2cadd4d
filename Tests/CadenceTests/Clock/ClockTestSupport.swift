import Cadence
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

/// A real loop running on a thread of its own for the duration of `body`, then closed.
func withRunningLoop<T>(_ body: (Loop) async throws -> T) async throws -> T {
    let loop = try Loop()
    try loop.startThread()
    do {
        let result = try await body(loop)
        try loop.stopThread()
        try loop.close()
        return result
    } catch {
        try loop.stopThread()
        try loop.close()
        throw error
    }
}

/// A value behind a lock, as a class: closures that tasks run capture it by reference.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
