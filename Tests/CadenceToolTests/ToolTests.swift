import Glibc
import Testing

/// The built `cadence` binary, run as a user runs it.
@Suite struct ToolTests {
    /// What a run of the tool printed (standard output and error together) and its exit status.
    struct Run {
        let output: String
        let status: Int32
    }

    /// The tool beside this test binary in the build directory (`swift test` builds every product).
    static var tool: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let me = count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        // .build/<triple>/debug/CadencePackageTests.xctest
        return String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/cadence"
    }

    /// Runs the tool with `arguments` (plain words, no quoting needed) through the shell.
    static func run(_ arguments: String) -> Run {
        guard let pipe = popen("'\(tool)' \(arguments) 2>&1", "r") else { return Run(output: "", status: -1) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = fread(&chunk, 1, chunk.count, pipe)
            if read == 0 { break }
            bytes += chunk[..<read]
        }
        let status = pclose(pipe)
        return Run(output: String(decoding: bytes, as: UTF8.self), status: (status >> 8) & 0xff)
    }

    @Test func theToolIsBuilt() {
        #expect(access(Self.tool, X_OK) == 0, "\(Self.tool)")
    }

    @Test func helpHelp() {
        let run = Self.run("help --help")
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("usage: cadence help [COMMAND]\n"), "\(run.output)")
    }

    @Test func aHexadecimalCountdownIsRefused() {
        let run = Self.run("countdown 0x10")
        #expect(run.status == 2)
        #expect(run.output == """
            cadence: SECONDS: '0x10' is not a decimal number of seconds (such as 0.25 or 1e-3)
            usage: cadence countdown SECONDS [--tick S]
            Try 'cadence help countdown' for more.

            """)
    }

    @Test func aNanosecondIntervalIsShown() {
        let run = Self.run("ticks --every 1e-9 --for 0.001")
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("timer every 1 ns, tolerance 0 s, for 1 ms; "), "\(run.output.prefix(200))")
    }
}
