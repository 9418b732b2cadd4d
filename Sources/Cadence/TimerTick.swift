import FoundationEssentials

/// One firing of a timer, as delivered to a callback.
public struct TimerTick: Sendable, Hashable {
    /// The time the tick was due on the timer's schedule (not the time the callback ran): wall-clock
    /// time derived from the loop's monotonic clock, or virtual seconds since 1970 on a virtual loop.
    ///
    /// A `Date` keeps seconds since 2001 in a `Double`, so `timeIntervalSince1970` comes back within
    /// about 0.1 µs of the engine's nanosecond date, not exactly: on a virtual loop a tick due at
    /// 0.2 s reads 0.20000004768371582. Compare dates with a tolerance (a microsecond is plenty);
    /// the C and Python ticks carry the seconds as computed, without `Date`.
    public let fireDate: Date
    /// How many grid points were skipped before this fire because the loop got to the timer late
    /// (0 when on time). A repeating timer fires once for a late period, as Apple's `Timer` does.
    public let skipped: Int

    /// The fire date in seconds since the Unix epoch, computed from the engine's nanoseconds rather
    /// than read back from ``fireDate`` (which `Date` rounds to about 0.1 µs): for the C API.
    package let fireDateSeconds: Double

    /// Creates a tick value.
    public init(fireDate: Date, skipped: Int) {
        self.init(fireDate: fireDate, seconds: fireDate.timeIntervalSince1970, skipped: skipped)
    }

    init(fireDate: Date, seconds: Double, skipped: Int) {
        self.fireDate = fireDate
        fireDateSeconds = seconds
        self.skipped = skipped
    }
}
