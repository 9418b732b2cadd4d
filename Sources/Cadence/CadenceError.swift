/// An error from Cadence, with the same numeric code that the C API returns and a message that
/// says what was wrong.
///
/// Codes are negative, in the style of libuv's errors (`uv_strerror`, `uv_err_name`): most equal
/// the negated `errno` value of the same name. The C functions `cadence_strerror` and
/// `cadence_err_name` give the same ``summary`` and ``name``.
///
/// An error that Cadence throws also carries a ``message`` that names the argument, its value
/// and the rule it broke (`"tolerance must be >= 0 and finite, got -1.0"`) and the ``call`` that
/// threw (`"Loop.schedule(after:tolerance:in:_:)"`); ``description`` joins the two. The C API
/// gives the same message, with the C function's name, from `cadence_last_error_message`.
///
/// Two errors are equal, and hash alike, when their codes are equal: the message is detail, not
/// identity. So `#expect(throws: CadenceError.invalidArgument)`, `catch CadenceError.busy` and
/// `error == .badHandle` match every error of that code, whatever its message.
public struct CadenceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The negative error code, as returned by the C API.
    public let code: Int32

    /// The message and the call, when the error has them. A reference, so that the error stays two
    /// words and the static errors below cost nothing to throw.
    private let detail: Detail?

    private final class Detail: Sendable {
        let message: String
        let call: String
        init(message: String, call: String) {
            self.message = message
            self.call = call
        }
    }

    /// Creates an error from a C error code, with the code's ``summary`` as its message.
    public init(code: Int32) {
        self.code = code
        detail = nil
    }

    /// Creates an error from a C error code and a message that names the argument, its value and
    /// the rule (without the call; see ``in(_:)``).
    public init(code: Int32, message: String) {
        self.code = code
        detail = Detail(message: message, call: "")
    }

    private init(code: Int32, detail: Detail?) {
        self.code = code
        self.detail = detail
    }

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

    /// A short English phrase for the code, such as `"invalid argument"` (`cadence_strerror`).
    public var summary: String { Self.table[code]?.message ?? "unknown error \(code)" }

    /// What was wrong: the argument, its value and the rule, such as
    /// `"tolerance must be >= 0 and finite, got -1.0"`; the ``summary`` for an error made from a
    /// code alone.
    public var message: String { detail?.message ?? summary }

    /// The public call that threw, such as `"Loop.run(mode:for:)"`; empty when not known.
    public var call: String { detail?.call ?? "" }

    /// The ``call`` and the ``message``: `"Loop.run(mode:for:): mode must not be common, got
    /// \"common\""`; just the message when the call is not known.
    public var description: String {
        guard let detail, !detail.call.isEmpty else { return message }
        return "\(detail.call): \(detail.message)"
    }

    /// This error, naming `call` as the call that threw it. A public function that calls another
    /// renames the error on its way out, so the name is that of the outermost call, the one the
    /// caller made: `do { ... } catch { throw error.in("Loop.run(mode:for:)") }`, which costs
    /// nothing unless it throws.
    @inline(never)
    public func `in`(_ call: String) -> CadenceError {
        CadenceError(code: code, detail: Detail(message: message, call: call))
    }

    public static func == (lhs: CadenceError, rhs: CadenceError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

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
