import Glibc

/// A plain mutex with a condition. Cadence holds it only around bookkeeping, never while a
/// callback runs.
///
/// `Synchronization.Mutex` serves everything that needs only mutual exclusion; this one stays
/// for the loop (``Loop``), which waits on its condition and takes it on every arm, cancel and
/// fire, for the broadcast's lock over several objects, for the handle registry, and in
/// ``LockedState``.
// Unchecked: a pthread mutex and condition exist to be shared between threads.
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Takes the lock; pair with ``unlock()``. For hot paths where ``withLock(_:)`` would pass a
    /// closure value through its generic result (which costs an allocation to reabstract).
    @inline(__always) package func lock() { pthread_mutex_lock(mutex) }

    @inline(__always) package func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for ``signalAll()``; call with the lock held (inside ``withLock(_:)``), in a loop
    /// that re-checks what it waits for.
    func wait() { pthread_cond_wait(condition, mutex) }

    /// ``wait()`` for at most `seconds` of real time (CLOCK_REALTIME, the condition's clock).
    func wait(seconds: Int) {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes every thread in ``wait()``.
    func signalAll() { pthread_cond_broadcast(condition) }
}

/// A value guarded by a ``Lock``, with `Mutex`'s `withLock` shape: for state that the C API's
/// calls reach from any thread at once (two cancels of one countdown or poller, a cancel racing
/// a poll). ThreadSanitizer sees a pthread mutex; it does not see `Mutex`'s futex, and would
/// report the accesses it orders as races.
// Unchecked: `value` is only touched under `lock`.
final class LockedState<Value: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    @inline(__always)
    func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        try lock.withLock { () throws(E) -> T in try body(&value) }
    }
}
