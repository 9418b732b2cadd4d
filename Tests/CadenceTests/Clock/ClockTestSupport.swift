@testable import Cadence
import Dispatch
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

/// A value behind a lock, as a class: closures that tasks run capture it by reference. The
/// engine's pthread lock (`LockedState`), which ThreadSanitizer sees, unlike `Mutex`'s futex.
final class Locked<Value: Sendable>: Sendable {
    private let state: LockedState<Value>

    init(_ value: Value) { state = LockedState(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T { state.withLock { body(&$0) } }
}

/// What `operation` returns, or nil if it has not returned within `timeout` of real time: for an
/// await that must fail a test when it hangs, instead of hanging the suite (a task's `result`
/// ignores the cancellation of its awaiter, so `.timeLimit` alone would not end such a wait). A
/// hung operation is left behind. 30 s by default: the tests share the system's pool with
/// tests that block it for seconds on a loaded machine (see `offThePool`), and a finished
/// operation and an expired timeout that both wait for a thread may be taken in either order.
func withTimeout<T: Sendable>(_ timeout: Duration = .seconds(30),
                              _ operation: @escaping @Sendable () async -> T) async -> T? {
    await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        let pending = Locked<CheckedContinuation<T?, Never>?>(continuation)
        let finish: @Sendable (T?) -> Void = { value in
            pending.withLock { pending in defer { pending = nil }; return pending }?.resume(returning: value)
        }
        Task { finish(await operation()) }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { finish(nil) }
    }
}
