/// Monotonic time inside the engine: unsigned nanoseconds, with saturating arithmetic so that a
/// huge interval never wraps around into "now".
typealias Nanoseconds = UInt64

extension UInt64 {
    /// `self + other`, clamped to `UInt64.max`.
    @inline(__always)
    func saturatingAdd(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    /// `self * other`, clamped to `UInt64.max`.
    @inline(__always)
    func saturatingMultiply(_ other: UInt64) -> UInt64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }
}

/// Converts public seconds to engine nanoseconds after checking them.
///
/// - Parameters:
///   - seconds: the caller's value.
///   - allowZero: whether 0 is allowed (a delay, a tolerance) or not (an interval).
///   - argument: the argument's name, for the error's message.
/// - Throws: ``CadenceError/invalidArgument`` for NaN, infinities, negative values, or zero when
///   `allowZero` is false. Values beyond about 584 years saturate.
@inline(__always)
func nanoseconds(fromSeconds seconds: Double, allowZero: Bool, argument: StaticString) throws(CadenceError) -> Nanoseconds {
    // The usual case first, in one range test (false for NaN and infinities).
    if seconds > 0 && seconds < 1.8e10 { return Nanoseconds((seconds * 1e9).rounded(.up)) }
    if seconds == 0 && allowZero { return 0 }
    if seconds >= 1.8e10 && seconds.isFinite { return .max }
    throw .badSeconds(argument, seconds, allowZero: allowZero)  // out of line: built only here
}

/// Converts a date in seconds of a loop's monotonic clock (CLOCK_MONOTONIC on a real loop, the
/// virtual clock on a virtual one) to engine nanoseconds: a date within a hundredth of a
/// nanosecond of a whole one (a float's rounding of it: 1.3 is 1,300,000,000.0000002 ns) is that
/// nanosecond, any other is rounded up, so a timer is never early by its own date; a date before
/// 0 is 0, one of 1.8e10 s or more saturates.
///
/// - Throws: ``CadenceError/invalidArgument`` for NaN or an infinity, naming `argument`.
@inline(__always)
func nanoseconds(fromDate seconds: Double, argument: StaticString) throws(CadenceError) -> Nanoseconds {
    if seconds > 0 && seconds < 1.8e10 {
        let exact = seconds * 1e9
        let nearest = exact.rounded()
        return Nanoseconds(exact - nearest < 0.01 ? nearest : exact.rounded(.up))
    }
    if seconds.isFinite { return seconds > 0 ? .max : 0 }
    throw .badMonotonicDate(argument, seconds)  // out of line: built only here
}

/// Converts a public `Duration` to engine nanoseconds after checking it, by the rules of
/// `nanoseconds(fromSeconds:allowZero:argument:)`, its message showing the `Duration` as given
/// (`.milliseconds(-5)`): attoseconds are rounded up to whole nanoseconds, so a timer is never early.
///
/// - Parameters:
///   - duration: the caller's value.
///   - allowZero: whether zero is allowed (a delay, a tolerance) or not (an interval).
///   - argument: the argument's name, for the error's message.
/// - Throws: ``CadenceError/invalidArgument`` for a negative duration, or zero when `allowZero`
///   is false. Durations of 1.8e10 s or more saturate, as seconds do.
@inline(__always)
func nanoseconds(from duration: Duration, allowZero: Bool, argument: StaticString) throws(CadenceError) -> Nanoseconds {
    let attoseconds = duration.attoseconds
    // The usual case first, as for seconds. The 128-bit count is split into 64-bit halves, so that
    // the division by 10⁹ is a multiplication, not a call to a 128-bit division (2⁶⁴ =
    // 18_446_744_073 × 10⁹ + 709_551_616).
    if attoseconds > 0 && attoseconds < 18_000_000_000_000_000_000_000_000_000 {
        let high = UInt64(truncatingIfNeeded: attoseconds >> 64), low = UInt64(truncatingIfNeeded: attoseconds)
        let remainder = high &* 709_551_616 &+ low % 1_000_000_000
        return high &* 18_446_744_073 &+ low / 1_000_000_000 &+ (remainder &+ 999_999_999) / 1_000_000_000
    }
    if attoseconds == 0 && allowZero { return 0 }
    if attoseconds > 0 { return .max }
    throw .badDuration(argument, duration, allowZero: allowZero)  // out of line: built only here
}

extension Duration {
    /// The duration as error messages show it: the call that makes it, in the largest unit that
    /// holds it whole (`.milliseconds(-5)`, `.seconds(2)`, `.zero`), so a message gives back what
    /// the caller wrote rather than seconds it did not write.
    var shownInMessages: String {
        let attoseconds = self.attoseconds
        guard attoseconds != 0 else { return ".zero" }
        let units: [(name: String, attoseconds: Int128)] = [
            ("seconds", 1_000_000_000_000_000_000), ("milliseconds", 1_000_000_000_000_000),
            ("microseconds", 1_000_000_000_000), ("nanoseconds", 1_000_000_000),
        ]
        for unit in units where attoseconds % unit.attoseconds == 0 {
            return ".\(unit.name)(\(attoseconds / unit.attoseconds))"
        }
        return "Duration(attoseconds: \(attoseconds))"
    }

    /// The duration in seconds, as close as a `Double` gets: for messages and for the calls that
    /// keep seconds (``TimerPublisher/interval``).
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in seconds for the calls that pass seconds on (a ``Scheduler``'s, whose dates
    /// are `Date`s): rounded up to whole nanoseconds first, so that it is never shorter; zero,
    /// negative and huge durations as they are, for those calls' checks and messages.
    var roundedUpSeconds: Double {
        guard let rounded = try? Cadence.nanoseconds(from: self, allowZero: false, argument: ""),
              rounded != .max else { return inSeconds }
        return Double(rounded) / 1e9
    }
}
