import Cadence
import Glibc

/// Runs the command named on the command line; returns the exit status.
func runTool(_ arguments: [String]) -> Int32 {
    let command: Command
    do {
        command = try Arguments.parse(arguments)
    } catch {
        Console.err("cadence: \(error.message)\n\(Usage.synopsis(for: error.command))\n"
                    + "Try 'cadence help\(error.command.map { " " + $0 } ?? "")' for more.\n")
        return 2
    }
    do {
        switch command {
        case .help(let topic):
            Console.out(Usage.text(for: topic))
        case .version:
            Console.out("cadence \(cadenceVersion)\n")
        case .tour:
            return Tour.run()
        case .countdown(let seconds, let tick):
            try Countdown.run(seconds: seconds, tick: tick)
        case .ticks(let every, let tolerance, let duration):
            try Ticks.run(every: every, tolerance: tolerance, duration: duration)
        case .every(let interval, let tolerance, let count, let command):
            return try Every.run(interval: interval, tolerance: tolerance, count: count, command: command)
        }
    } catch {
        Console.err("cadence: \(error) (\(error.name))\n")
        return 1
    }
    return 0
}

exit(runTool(Array(CommandLine.arguments.dropFirst())))
