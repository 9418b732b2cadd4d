import Cadence
import Glibc
import CCadenceHeader

/// Runs `body` and turns its outcome into a C return code: 0, or the error's negative code.
@inline(__always)
func cResult(_ body: () throws(CadenceError) -> Void) -> Int32 {
    do {
        try body()
        return 0
    } catch {
        return error.code
    }
}

/// A C string argument as a run loop mode; NULL or invalid UTF-8 is an invalid argument.
func mode(_ name: UnsafePointer<CChar>?) throws(CadenceError) -> RunLoopMode {
    guard let name else { throw .invalidArgument }
    // The built-in modes without making a String: most calls name one of them.
    if name.isEqual(to: "default") { return .default }
    if name.isEqual(to: "common") { return .common }
    guard let string = String(validatingCString: name) else { throw .invalidArgument }
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
    guard let out else { throw .invalidArgument }
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
            table[error.code] = (PermanentCString(error.name), PermanentCString(error.description))
        }
        table[0] = (PermanentCString("OK"), PermanentCString("success"))
        return table
    }()
    static let unknownName = PermanentCString("UNKNOWN")
    static let unknownMessage = PermanentCString("unknown error")
}
