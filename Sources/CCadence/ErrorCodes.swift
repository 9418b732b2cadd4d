import Cadence
import Glibc
import CCadenceHeader

/// Runs `body` and turns its outcome into a C return code: 0, or the error's negative code after
/// setting the thread's last error message (see ``fail(_:_:)``). `function` is the calling
/// export's name, filled in by the compiler, so an export writes only `cResult { ... }`.
@inline(__always)
func cResult(_ function: StaticString = #function, _ body: () throws(CadenceError) -> Void) -> Int32 {
    do {
        try body()
        return 0
    } catch {
        return fail(error, function)
    }
}

/// Records `error` as the calling thread's last error, as `"<C function>: <message>"`, and returns
/// its code: for exports that return a code without ``cResult(_:_:)``. The success path never
/// comes here, so a call that succeeds costs nothing for the message.
@inline(never)
func fail(_ error: CadenceError, _ function: StaticString = #function) -> Int32 {
    LastError.set("\(cName(function)): \(error.message)")
    return error.code
}

/// What a release answers for a stale or already released handle: `CADENCE_EBADF`, leaving the
/// thread's last error message alone. Finalizers (a Python `__del__`, a Swift `deinit`) release
/// handles at any moment, also between a failed call and the read of that call's message.
let staleRelease = CadenceError.badHandle.code

/// `cadence_loop_run` from `#function`'s `cadence_loop_run(_:_:_:)`.
private func cName(_ function: StaticString) -> Substring {
    let name = "\(function)"
    return name.prefix { $0 != "(" }
}

/// The C layer's own checks, in the words of the errors they make.
extension CadenceError {
    /// A NULL pointer argument: `"out must not be NULL, got NULL"`.
    @inline(never)
    static func null(_ argument: StaticString) -> CadenceError {
        invalidArgument.with("\(argument) must not be NULL, got NULL")
    }

    /// A `size_t` count that Swift sees as negative: 2^63 or more, never a real array's length (a
    /// negative `int` passed by mistake, most likely).
    static func hugeCount(_ count: Int, _ argument: StaticString = "count") -> CadenceError {
        invalidArgument.with("\(argument) must be at most \(Int.max), got \(UInt(bitPattern: count))")
    }

    /// A C string that is not UTF-8, shown with U+FFFD for the bytes that are not.
    @inline(never)
    static func notUTF8(_ argument: StaticString, _ string: UnsafePointer<CChar>) -> CadenceError {
        invalidArgument.with("\(argument) must be UTF-8, got \(quoted(String(cString: string)))")
    }

    /// `cadence_loop_schedule_default`, a batch, or a NULL callback, on a loop without a fire function.
    @inline(never)
    static func noFireFunction() -> CadenceError {
        invalidArgument.with("loop must have a fire function, got none (cadence_loop_set_callbacks first)")
    }

    /// A NULL callback to a registering call, on a loop without a fire function to stand in.
    @inline(never)
    static func nullCallback() -> CadenceError {
        invalidArgument.with("fn must not be NULL, got NULL (or set the loop's fire function: cadence_loop_set_callbacks)")
    }

    /// A number that is not a `cadence_missed_ticks` value.
    @inline(never)
    static func badPolicy(_ argument: StaticString, _ value: Int32) -> CadenceError {
        invalidArgument.with("\(argument) must be a cadence_missed_ticks value (0 skip, 1 burst, 2 delay), got \(value)")
    }
}

/// A C string argument as a run loop mode; NULL or invalid UTF-8 is an invalid argument.
func mode(_ name: UnsafePointer<CChar>?) throws(CadenceError) -> RunLoopMode {
    guard let name else { throw .null("mode") }
    // The built-in modes without making a String: most calls name one of them.
    if name.isEqual(to: "default") { return .default }
    if name.isEqual(to: "common") { return .common }
    guard let string = String(validatingCString: name) else { throw .notUTF8("mode", name) }
    return RunLoopMode(string)
}

extension UnsafePointer<CChar> {
    /// Whether this C string is `literal` (ASCII), compared byte by byte: inlined, a short name
    /// costs a handful of instructions where `strcmp` took 20 to 41 (its cost moved with where
    /// the two strings sat). It stops at the first byte that differs, a terminating NUL included,
    /// so it never reads past the end of this string.
    @inline(__always)
    fileprivate func isEqual(to literal: StaticString) -> Bool {
        let bytes = literal.utf8Start
        for index in 0..<literal.utf8CodeUnitCount where UInt8(bitPattern: self[index]) != bytes[index] {
            return false
        }
        return self[literal.utf8CodeUnitCount] == 0
    }
}

/// Writes through a C out-pointer, which must not be NULL.
func write<T>(_ value: T, to out: UnsafeMutablePointer<T>?) throws(CadenceError) {
    guard let out else { throw .null("out") }
    out.pointee = value
}

/// A C string that lives for the whole process, as the C API promises for its static strings.
struct PermanentCString: @unchecked Sendable {
    let pointer: UnsafePointer<CChar>

    init(_ string: String) {
        let bytes = Array(string.utf8CString)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        buffer.initialize(from: bytes, count: bytes.count)
        pointer = UnsafePointer(buffer)
    }
}

/// The error table as static C strings, made once.
enum ErrorStrings {
    static let byCode: [Int32: (name: PermanentCString, message: PermanentCString)] = {
        var table: [Int32: (name: PermanentCString, message: PermanentCString)] = [:]
        for error in CadenceError.all {
            table[error.code] = (PermanentCString(error.name), PermanentCString(error.summary))
        }
        table[0] = (PermanentCString("OK"), PermanentCString("success"))
        return table
    }()
    static let unknownName = PermanentCString("UNKNOWN")
    static let unknownMessage = PermanentCString("unknown error")
}
