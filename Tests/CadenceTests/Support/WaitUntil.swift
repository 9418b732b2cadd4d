import Glibc

/// Waits until `condition` holds, checking it every millisecond, for at most `timeout` seconds of
/// real time, and returns whether it held: for a state that another thread (a loop's own thread,
/// a dispatch queue) reaches. The test goes on as soon as the state is reached instead of sleeping
/// a guessed time, and a state never reached fails the `#expect` or `#require` around the call
/// instead of hanging the suite. The async twin is `eventually` (Clock/ClockTestSupport.swift);
/// C's is `wait_until` (Tests/C/check.h), Python's `wait_for` (bindings/python/tests/test_thread.py).
///
/// To show that something does *not* happen (no tick after a cancel), wait for a later event that
/// would come after it, such as a one-shot scheduled past the next grid points, not for a time.
func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: .nanoseconds(Int64(timeout * 1e9)))
    while !condition() {
        guard clock.now < end else { return condition() }
        usleep(1_000)
    }
    return true
}
