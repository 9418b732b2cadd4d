import Glibc
import Testing

/// `Loop.runMain`: a program whose main and default executors are a Cadence loop
/// (Tests/MainOnLoop, a process of its own, since a process sets its main executor once).
@Suite struct RunMainTests {
    @Test func everyTaskAndSleepOfTheProgramRunsOnTheLoop() throws {
        let (status, output) = try run("MainOnLoop")
        #expect(status == 0)
        #expect(output == """
            main actor on the loop's thread: true
            the loop is the global executor: true
            Task {} on the loop's thread: true
            Task.detached on the loop's thread: true
            @concurrent function on the loop's thread: true
            an actor on the loop's thread: true, on the loop's executor: true
            a main-actor sleep is a loop timer: 1 armed, early: false
            10 sleeps with overlapping tolerance: 10 on time, 1 wake-up
            a cancelled hour-long sleep: 1 armed, 0 after cancel(), cancelled: true
            runMain returned: done

            """)
    }

    @Test func aBodysErrorIsThrownAndASecondCallIsRefused() throws {
        let (status, output) = try run("MainOnLoop", "errors")
        #expect(status == 0)
        #expect(output == """
            a body's error comes out of runMain: true
            a second runMain: true, Loop.runMain(_:): runMain must be called once per process \
            (the main executor is set once), got a second call

            """)
    }

    /// Runs a program built beside the test bundle; returns its exit status and output.
    func run(_ program: String, _ arguments: String...) throws -> (Int32, String) {
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
}
