/// A clock that moves only when told: the engine's test double, and the basis of virtual loops.
///
/// Sleeping jumps the clock straight to the deadline, so a run visits every wake-up the engine
/// chooses, in order, in no real time.
final class VirtualClock: LoopClock, @unchecked Sendable {
    private let lock = Lock()
    private var current: Nanoseconds

    init(start: Nanoseconds = 0) { current = start }

    func now() -> Nanoseconds { lock.withLock { current } }

    func sleep(until deadline: Nanoseconds) {
        lock.withLock { current = max(current, deadline) }
    }

    /// Moves the clock forward without running anything, as if the loop's thread were blocked.
    func advance(by duration: Nanoseconds) {
        lock.withLock { current = current.saturatingAdd(duration) }
    }

    func wake() {}
    func close() {}
    var epochOffset: Int64 { 0 }
}
