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
    if strcmp(name, "default") == 0 { return .default }
    if strcmp(name, "common") == 0 { return .common }
    guard let string = String(validatingCString: name) else { throw .invalidArgument }
    return RunLoopMode(string)
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
