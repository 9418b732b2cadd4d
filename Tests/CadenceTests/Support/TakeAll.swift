@testable import Cadence

extension TimerQueues {
    /// The heaps' size from which the take-all tests make a pass take its due timers at once
    /// (``TimerQueues/takeAllMinimum``), lowered from the default's 2¹⁷ so that a few hundred
    /// timers do.
    static let testTakeAllMinimum = 256
}
