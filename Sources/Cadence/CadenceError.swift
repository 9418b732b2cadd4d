/// An error from Cadence, with the same numeric code that the C API returns.
///
/// Codes are negative, in the style of libuv's errors (`uv_strerror`, `uv_err_name`): most equal
/// the negated `errno` value of the same name. The C functions `cadence_strerror` and
/// `cadence_err_name` give the same ``description`` and ``name``.
public struct CadenceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The negative error code, as returned by the C API.
    public let code: Int32

    /// Creates an error from a C error code.
    public init(code: Int32) { self.code = code }

    /// An argument is out of range: NaN, an infinity, a negative or zero interval, a negative
    /// tolerance, a NULL pointer, an empty or malformed mode name, or running in `common`.
    public static let invalidArgument = CadenceError(code: -22)
    /// A handle is stale, released, of the wrong kind, or belongs to a destroyed loop.
    public static let badHandle = CadenceError(code: -9)
    /// The loop is running: it cannot be run again from its own callback, nor destroyed then.
    public static let busy = CadenceError(code: -16)
    /// The connection, subscription or timer was already cancelled.
    public static let alreadyCancelled = CadenceError(code: -114)
    /// The run loop mode is not known to this loop; add it with `addMode` or `addCommonMode`.
    public static let unknownMode = CadenceError(code: -2)
    /// Memory or another resource could not be had.
    public static let outOfMemory = CadenceError(code: -12)
    /// libuv reported a failure when setting up or running the loop.
    public static let ioError = CadenceError(code: -5)
    /// The operation does not apply to this object (for example `connect` on an autoconnect publisher).
    public static let notSupported = CadenceError(code: -95)

    /// Every error this version of Cadence can report, in code order.
    public static let all: [CadenceError] = [
        .unknownMode, .ioError, .badHandle, .outOfMemory, .busy, .invalidArgument,
        .notSupported, .alreadyCancelled,
    ]

    /// The symbolic name, such as `"EINVAL"`; `"UNKNOWN"` for a code Cadence does not define.
    public var name: String { Self.table[code]?.name ?? "UNKNOWN" }

    /// A short English message for the error.
    public var description: String { Self.table[code]?.message ?? "unknown error \(code)" }

    private static let table: [Int32: (name: String, message: String)] = [
        -2: ("ENOENT", "unknown run loop mode"),
        -5: ("EIO", "event loop failure"),
        -9: ("EBADF", "stale, released or foreign handle"),
        -12: ("ENOMEM", "out of memory"),
        -16: ("EBUSY", "loop is running"),
        -22: ("EINVAL", "invalid argument"),
        -95: ("ENOTSUP", "operation not supported"),
        -114: ("EALREADY", "already cancelled"),
    ]
}
