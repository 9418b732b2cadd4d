import Cadence

/// `cadence tour`: runs every ``TourExperiment`` and prints the results as a table.
enum Tour {
    /// Runs the tour and prints it; returns the exit status (0 if every experiment passed).
    static func run() -> Int32 {
        Console.out("Cadence \(cadenceVersion) tour on \(Machine.summary())\n")
        Console.out("The seed article's timer measurements, replayed with its windows on a real loop (1-6),\n"
                    + "then its countdown and its exercise, a poller, in virtual time (7, 8).\n\n")
        let started = ThreadTime.monotonicSeconds()
        let progress = Console.errorIsTerminal
        let experiments = TourExperiment.allCases
        var results: [ExperimentResult] = []
        for (index, experiment) in experiments.enumerated() {
            if progress {
                Console.err("\rrunning \(index + 1)/\(experiments.count): \(experiment.name)\u{1B}[K")
            }
            results.append(outcome(of: experiment))
        }
        if progress { Console.err("\r\u{1B}[K") }
        let elapsed = ThreadTime.monotonicSeconds() - started
        Console.out(table(results).render())
        let passed = results.filter(\.passed).count
        Console.out("\n\(passed) of \(results.count) passed in \(Format.fixed(elapsed, 1)) s\n")
        return passed == results.count ? 0 : 1
    }

    /// Runs one experiment; a ``CadenceError`` becomes a failed result that shows the error.
    static func outcome(of experiment: TourExperiment) -> ExperimentResult {
        do {
            return try experiment.run()
        } catch {
            return ExperimentResult(name: experiment.name, figure: "error: \(error) (\(error.name))",
                                    expected: "no error", passed: false)
        }
    }

    /// The results as a table: experiment, measured, expected, result.
    static func table(_ results: [ExperimentResult]) -> Table {
        var table = Table(header: ["experiment", "measured", "expected", "result"])
        for result in results {
            table.rows.append([result.name, result.figure, result.expected, result.passed ? "PASS" : "FAIL"])
        }
        return table
    }
}
