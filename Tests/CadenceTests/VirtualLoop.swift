@testable import Cadence

/// A virtual loop with test conveniences.
struct VirtualLoop {
    let loop = Loop.virtual()

    /// Virtual milliseconds since the clock's start.
    var milliseconds: Int { Int(loop.timeSource.now() / 1_000_000) }

    /// Moves the clock without running the loop (a blocked thread).
    func block(for seconds: Double) { try! loop.jumpClock(by: seconds) }
}

extension TimerTick {
    /// The fire date as virtual milliseconds.
    var milliseconds: Int { Int((fireDate.timeIntervalSince1970 * 1000).rounded()) }
}
