@testable import Cadence

/// A loop on a virtual clock, for exact tests of the engine.
struct VirtualLoop {
    let clock = VirtualClock()
    let loop: Loop

    init() { loop = Loop(clock: clock) }

    /// Virtual milliseconds since the clock's start.
    var milliseconds: Int { Int(clock.now() / 1_000_000) }

    /// Moves the clock without running the loop (a blocked thread).
    func block(for seconds: Double) { clock.advance(by: UInt64(seconds * 1e9)) }
}

extension TimerTick {
    /// The fire date as virtual milliseconds.
    var milliseconds: Int { Int((fireDate.timeIntervalSince1970 * 1000).rounded()) }
}
