import Glibc

/// A one-line description of the machine the figures were measured on.
enum Machine {
    /// For example `Linux 6.18.44 x86_64, 2 CPUs`.
    static func summary() -> String {
        let cpus = processorCount()
        let processors = "\(cpus) CPU\(cpus == 1 ? "" : "s")"
        var names = utsname()
        guard uname(&names) == 0 else { return "an unknown system, \(processors)" }
        return "\(string(from: &names.sysname)) \(string(from: &names.release)) "
            + "\(string(from: &names.machine)), \(processors)"
    }

    /// The processors this process may run on, as `nproc` counts them: the bits of the
    /// `Cpus_allowed` mask in `/proc/self/status`, or the online processors if it cannot be read.
    static func processorCount() -> Int {
        if let mask = statusField("Cpus_allowed") {
            let count = mask.reduce(0) { sum, digit in sum + (digit.hexDigitValue ?? 0).nonzeroBitCount }
            if count > 0 { return count }
        }
        return max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The value of a `Name:\tvalue` line of `/proc/self/status`.
    private static func statusField(_ name: String) -> String? {
        let descriptor = open("/proc/self/status", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        for line in lines where line.hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1).trimmingPrefix { $0 == " " || $0 == "\t" }.description
        }
        return nil
    }

    /// A NUL-terminated C string stored in a fixed-size `utsname` field.
    private static func string<T>(from field: inout T) -> String {
        withUnsafeBytes(of: &field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
