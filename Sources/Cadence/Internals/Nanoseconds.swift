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
///   - seconds: the public value.
///   - allowZero: whether 0 is a valid value (a delay) or not (an interval).
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
