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
    /// The engine's index of a built-in mode, so that the common case needs no string compare.
    let builtinIndex: Int?

    /// Creates a mode value with the given name. The name is checked when the mode is used.
    public init(_ name: String) {
        self.name = name
        builtinIndex = nil
    }

    private init(builtin name: String, index: Int) {
        self.name = name
        builtinIndex = index
    }

    /// The default mode, always registered and always common.
    public static let `default` = RunLoopMode(builtin: "default", index: 0)
    /// The pseudo-mode that stands for every mode registered as common.
    public static let common = RunLoopMode(builtin: "common", index: 1)

    /// The mode's name.
    public var description: String { name }

    /// Equal when the names have the same UTF-8 bytes.
    public static func == (lhs: RunLoopMode, rhs: RunLoopMode) -> Bool {
        if let left = lhs.builtinIndex, let right = rhs.builtinIndex { return left == right }
        var left = lhs.name, right = rhs.name
        return left.withUTF8 { a in right.withUTF8 { b in a.elementsEqual(b) } }
    }

    /// Hashes the name's UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        var name = name
        name.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether the name is acceptable: 1 to 255 bytes, no control characters.
    var isWellFormed: Bool {
        let utf8 = name.utf8
        return !utf8.isEmpty && utf8.count <= 255
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
