import FoundationEssentials
import Glibc

/// The process's monotonic clock (CLOCK_MONOTONIC, as `uv_hrtime` and `DispatchTime` read it)
/// and the one offset that turns its readings into wall-clock dates, taken once so that every
/// real loop and dispatch scheduler reports dates on the same scale.
enum MonotonicClock {
    static func now() -> Nanoseconds {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Nanoseconds(time.tv_sec) * 1_000_000_000 + Nanoseconds(time.tv_nsec)
    }

    /// Nanoseconds since the Unix epoch minus monotonic nanoseconds, read once per process.
    static let epochOffset: Int64 = {
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let monotonic = Int64(bitPattern: now())
        return Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec) - monotonic
    }()

    /// Seconds since the Unix epoch of a monotonic reading, computed without going through `Date`
    /// (exact for virtual clocks, which start at 0).
    static func seconds(_ monotonic: Nanoseconds, offset: Int64 = epochOffset) -> Double {
        nanosecondsSinceEpoch(monotonic, offset: offset) / 1e9
    }

    /// The date of a monotonic reading, for a clock whose epoch offset is `offset`.
    static func date(_ monotonic: Nanoseconds, offset: Int64 = epochOffset) -> Date {
        Date(timeIntervalSince1970: nanosecondsSinceEpoch(monotonic, offset: offset) / 1e9)
    }

    /// An exact integer sum while it fits in 64 bits (short of 292 years of clock, so always but
    /// for a virtual clock pushed that far), else the nearest double.
    private static func nanosecondsSinceEpoch(_ monotonic: Nanoseconds, offset: Int64) -> Double {
        if monotonic <= UInt64(Int64.max) {
            let (sum, overflow) = Int64(monotonic).addingReportingOverflow(offset)
            if !overflow { return Double(sum) }
        }
        return Double(monotonic) + Double(offset)
    }

    /// The monotonic reading at which a clock with epoch offset `offset` shows `date`
    /// (0 for dates before its start, saturating at the far end).
    ///
    /// A `Date` holds seconds since 2001 in a `Double`, which is only good to about 0.1 µs today,
    /// so the date is rounded to whole microseconds first: a date computed as "now + 30 s" on a
    /// virtual clock then lands exactly on the grid it was meant for.
    ///
    /// - Throws: ``CadenceError/invalidArgument`` for a date that is not finite (NaN or infinite
    ///   seconds since 1970): it names no time at which to fire.
    static func monotonic(at date: Date, offset: Int64 = epochOffset) throws(CadenceError) -> Nanoseconds {
        guard date.timeIntervalSince1970.isFinite else { throw .badDate("date", date.timeIntervalSince1970) }
        let value = (date.timeIntervalSince1970 * 1e6).rounded() * 1e3 - Double(offset)
        guard value.isFinite else { return value > 0 ? .max : 0 }
        return value <= 0 ? 0 : value >= 1.8e19 ? .max : Nanoseconds(value)
    }
}
