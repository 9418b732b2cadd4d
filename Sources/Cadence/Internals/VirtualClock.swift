import Synchronization

/// A clock that moves only when told: the engine's test double, and the basis of virtual loops.
///
/// Sleeping jumps the clock straight to the deadline, so a run visits every wake-up the engine
/// chooses, in order, in no real time.
final class VirtualClock: TimeSource, Sendable {
    private let current: Mutex<Nanoseconds>

    init(start: Nanoseconds = 0) { current = Mutex(start) }

    func now() -> Nanoseconds { current.withLock { $0 } }

    func sleep(until deadline: Nanoseconds) -> Nanoseconds? {
        current.withLock { current in
            guard deadline > current else { return nil }
            current = deadline
            return deadline
        }
    }

    /// Moves the clock forward without running anything, as if the loop's thread were blocked.
    ///
    /// - Throws: ``CadenceError/invalidArgument`` if the clock would reach its end (see
    ///   ``canAdvance(by:)``); it is then left alone.
    func advance(by duration: Nanoseconds) throws(CadenceError) {
        try current.withLock { (current: inout Nanoseconds) throws(CadenceError) in
            guard Self.canAdvance(current, by: duration) else { throw .beyondClockEnd(Double(duration) / 1e9) }
            current += duration
        }
    }

    /// Whether the clock can move `duration` forward from where it is now.
    func canAdvance(by duration: Nanoseconds) -> Bool {
        Self.canAdvance(now(), by: duration)
    }

    /// The clock stays below `Nanoseconds.max` (about 584 years after its start), the date that
    /// every later fire date saturates to and that stands for "never": a clock there could not
    /// move on, and no timer armed afterwards would ever fire.
    private static func canAdvance(_ reading: Nanoseconds, by duration: Nanoseconds) -> Bool {
        let (sum, overflow) = reading.addingReportingOverflow(duration)
        return !overflow && sum < .max
    }

    func wake() {}
    func arm(at deadline: Nanoseconds) {}
    func drainWakeups() {}
    var descriptor: Int32? { nil }
    func close() {}
    var epochOffset: Int64 { 0 }
}
