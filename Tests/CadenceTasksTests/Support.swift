import Glibc
import Testing
import Synchronization

/// A value behind a lock, as a class: closures that tasks run capture it by reference.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}

/// Runs a program built beside the test bundle; returns its exit status and output.
func runProgram(_ program: String, _ arguments: String...) throws -> (Int32, String) {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let me = String(decoding: buffer[..<max(0, length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let path = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/" + program
    let command = ([path] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let pipe = try #require(popen(command + " 2>&1", "r"))
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while case let count = fread(&chunk, 1, chunk.count, pipe), count > 0 { output += chunk[..<count] }
    let status = pclose(pipe)
    return ((status >> 8) & 0xff, String(decoding: output, as: UTF8.self))
}
