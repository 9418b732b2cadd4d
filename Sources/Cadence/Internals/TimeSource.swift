/// What the engine needs from the thing that drives it: a clock, a way to sleep until a deadline,
/// and a way to be woken early from another thread.
///
/// The engine never knows which clock it has: the libuv backend and the virtual clock drive the
/// same timer bookkeeping. (A loop's public `Clock` is ``LoopClock``, which reads this one.)
protocol TimeSource: AnyObject {
    /// A fresh read of the monotonic clock, in nanoseconds.
    func now() -> Nanoseconds
    /// Sleeps until the clock reads at least `deadline` or until ``wake()`` is called, and returns
    /// the clock read after the wait (which may have ended early); nil, without waiting, if the
    /// clock reads `deadline` already.
    func sleep(until deadline: Nanoseconds) -> Nanoseconds?
    /// Ends a ``sleep(until:)`` in progress or the next one; callable from any thread. For a loop
    /// driven by a host, makes its descriptor readable or its host's loop call in.
    func wake()
    /// Arms the wake-up of a loop driven by a host at `deadline` (`.max`: none), without sleeping.
    func arm(at deadline: Nanoseconds)
    /// Takes in the wake-ups already delivered, so that the descriptor shows only new ones.
    func drainWakeups()
    /// A descriptor that is readable when the loop has a wake-up due or was woken; nil if the
    /// clock has none (a virtual clock, or a host's libuv loop, which watches the clock itself).
    var descriptor: Int32? { get }
    /// Makes a host's `uv_loop_t` run on for the loop or not (`uv_ref` / `uv_unref`); called on
    /// the host's thread. Nothing for a clock without a host's loop.
    func keepHostAlive(_ alive: Bool)
    /// Releases the clock's resources; called once, when the loop is destroyed.
    func close()
    /// What to add to a monotonic reading to get nanoseconds since the Unix epoch.
    var epochOffset: Int64 { get }
}

extension TimeSource {
    func keepHostAlive(_ alive: Bool) {}
}
