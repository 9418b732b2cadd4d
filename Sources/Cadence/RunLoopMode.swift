/// A run loop mode: a name that decides which timers may fire while a loop runs.
///
/// A loop runs in one mode at a time, and a timer fires only while its loop runs in the mode the
/// timer was added to. ``common`` is a pseudo-mode: a timer added to it fires in every mode
/// registered as common (``default`` always is; others become common through
/// ``Loop/addCommonMode(_:)``). Modes compare by name. This follows Apple's `RunLoop.Mode` and
/// `CFRunLoopAddCommonMode`. Names compare byte for byte (as C strings and Python `str` do), not by
/// Unicode canonical equivalence.
///
/// A name must be 1 to 255 bytes of UTF-8 with no control characters; other names are rejected
/// with ``CadenceError/invalidArgument`` where they are used.
public struct RunLoopMode: Hashable, Sendable, CustomStringConvertible {
    /// The mode's name.
    public let name: String

    /// Creates a mode value with the given name. The name is checked when the mode is used.
    public init(_ name: String) { self.name = name }

    /// The default mode, always registered and always common.
    public static let `default` = RunLoopMode("default")
    /// The pseudo-mode that stands for every mode registered as common.
    public static let common = RunLoopMode("common")

    /// The mode's name.
    public var description: String { name }

    /// Equal when the names have the same UTF-8 bytes.
    public static func == (lhs: RunLoopMode, rhs: RunLoopMode) -> Bool {
        lhs.name.utf8.elementsEqual(rhs.name.utf8)
    }

    /// Hashes the name's UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        for byte in name.utf8 { hasher.combine(byte) }
    }

    /// Whether the name is acceptable: 1 to 255 bytes, no control characters.
    var isWellFormed: Bool {
        let utf8 = name.utf8
        return !utf8.isEmpty && utf8.count <= 255
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
