@testable import cadence_tool
import Testing

/// How the tool reads its command line.
@Suite struct ArgumentsTests {
    private func usageError(_ arguments: [String]) -> UsageError? {
        do {
            _ = try Arguments.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func helpAsksForItsOwnHelp() throws {
        #expect(try Arguments.parse(["help", "--help"]) == .help(topic: "help"))
        #expect(try Arguments.parse(["help", "-h"]) == .help(topic: "help"))
        #expect(try Arguments.parse(["help", "help"]) == .help(topic: "help"))
        #expect(try Arguments.parse(["help"]) == .help(topic: nil))
        #expect(try Arguments.parse(["help", "ticks"]) == .help(topic: "ticks"))
        #expect(usageError(["help", "nope"]) == UsageError(message: "unknown command 'nope'", command: nil))
        #expect(Usage.text(for: "help").hasPrefix("usage: cadence help [COMMAND]\n"))
        #expect(Usage.synopsis(for: "help") == "usage: cadence help [COMMAND]")
    }

    @Test func durationsAreDecimal() throws {
        #expect(try Arguments.parse(["countdown", "16"]) == .countdown(seconds: 16, tick: 0.25))
        #expect(try Arguments.parse(["countdown", ".5", "--tick", "1e-3"]) == .countdown(seconds: 0.5, tick: 0.001))
        #expect(try Arguments.parse(["countdown", "2.", "--tick=+2.5E-1"]) == .countdown(seconds: 2, tick: 0.25))
        let hexadecimal = "is not a decimal number of seconds (such as 0.25 or 1e-3)"
        #expect(usageError(["countdown", "0x10"])
                == UsageError(message: "SECONDS: '0x10' \(hexadecimal)", command: "countdown"))
        #expect(usageError(["countdown", "0X1p3"])
                == UsageError(message: "SECONDS: '0X1p3' \(hexadecimal)", command: "countdown"))
        #expect(usageError(["ticks", "--every", "0x1"])
                == UsageError(message: "--every: '0x1' \(hexadecimal)", command: "ticks"))
        #expect(usageError(["every", "0x5", "--", "true"])
                == UsageError(message: "INTERVAL: '0x5' \(hexadecimal)", command: "every"))
        #expect(usageError(["countdown", "inf"])
                == UsageError(message: "SECONDS must be a finite number of seconds, not 'inf'", command: "countdown"))
        #expect(usageError(["countdown", "-3"])
                == UsageError(message: "SECONDS must not be negative, got -3", command: "countdown"))
    }

    @Test func decimalNumbers() {
        for text in ["0", "16", "+1", "-2", ".5", "5.", "0.25", "1e-3", "1E+9", "007"] {
            #expect(Arguments.isDecimal(text), "\(text)")
        }
        for text in ["", ".", "e3", "1e", "1e+", "0x10", "0x1p3", "inf", "nan", "1.2.3", " 1", "1 ", "1_0", "--1"] {
            #expect(!Arguments.isDecimal(text), "\(text)")
        }
    }
}

/// How the tool shows numbers.
@Suite struct FormatTests {
    @Test func durationsShowInAUnitThatShowsThem() {
        #expect(Format.duration(1e-9) == "1 ns")
        #expect(Format.duration(1.5e-9) == "1.5 ns")
        #expect(Format.duration(1e-10) == "0.1 ns")
        #expect(Format.duration(2.5e-6) == "2.5 µs")
        #expect(Format.duration(0.05) == "50 ms")
        #expect(Format.duration(0) == "0 s")
        #expect(Format.duration(2.5) == "2.5 s")
        #expect(Format.duration(1e9) == "1000000000 s")
    }

    @Test func theTicksHeaderShowsATinyInterval() {
        #expect(Ticks.header(every: 1e-9, tolerance: 0, duration: 1)
                == "timer every 1 ns, tolerance 0 s, for 1 s; lateness = clock read in the callback - fire date\n")
    }
}
