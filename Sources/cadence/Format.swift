/// Number formatting without Foundation's `String(format:)`.
enum Format {
    /// `value` with exactly `digits` decimals (0 to 9), rounded half away from zero.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        let digits = min(max(digits, 0), 9)
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value.magnitude * Double(scale)).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let units = Int64(scaled)
        var text = (value < 0 && units != 0 ? "-" : "") + String(units / scale)
        if digits > 0 {
            let fraction = String(units % scale)
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        return text
    }

    /// Seconds shown as whole milliseconds, such as `600` for 0.6.
    static func wholeMilliseconds(_ seconds: Double) -> String { fixed(seconds * 1000, 0) }

    /// Seconds shown as milliseconds with microsecond digits, such as `0.081`.
    static func milliseconds(_ seconds: Double) -> String { fixed(seconds * 1000, 3) }

    /// A duration given on the command line, shown as briefly as it reads: `0.05`, `1`, `2.5`.
    static func seconds(_ value: Double) -> String {
        var text = fixed(value, 6)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// A duration in the largest of s, ms, µs and ns that shows it as 1 or more (seconds for 0),
    /// with up to six decimals: `0.05` is `50 ms`, `1e-9` is `1 ns`, `2.5` is `2.5 s`. Below a
    /// nanosecond it stays in ns (`0.1 ns`), so nothing the command line accepts reads as 0.
    static func duration(_ seconds: Double) -> String {
        let units: [(name: String, scale: Double)] = [("s", 1), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)]
        let unit = units.first { seconds == 0 || (seconds * $0.scale).magnitude >= 1 } ?? units[3]
        return self.seconds(seconds * unit.scale) + " " + unit.name
    }

    /// `text` padded with spaces to `width` characters, on the left when `right` is true.
    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }
}
