import Cadence

/// `cadence tour`: runs every ``TourExperiment`` (the scenarios of `Tests/Scenarios` that name a
/// tour row) and prints the results as a table.
enum Tour {
    /// Runs the tour and prints it; returns the exit status (0 if every experiment passed).
    static func run() -> Int32 {
        Console.out("Cadence \(cadenceVersion) tour on \(Machine.summary())\n")
        Console.out(introduction)
        let started = ThreadTime.monotonicSeconds()
        let progress = Console.errorIsTerminal
        let experiments: [TourExperiment]
        do {
            experiments = try TourExperiment.all()
        } catch {
            Console.err("cadence tour: cannot read the scenarios: \(error)\n")
            return 1
        }
        var results: [ExperimentResult] = []
        for (index, experiment) in experiments.enumerated() {
            if progress {
                Console.err("\rrunning \(index + 1)/\(experiments.count): \(experiment.name)\u{1B}[K")
            }
            results.append(experiment.run())
        }
        if progress { Console.err("\r\u{1B}[K") }
        let elapsed = ThreadTime.monotonicSeconds() - started
        Console.out(table(results).render())
        let passed = results.filter(\.passed).count
        Console.out("\n\(passed) of \(results.count) passed in \(Format.fixed(elapsed, 1)) s\n")
        return passed == results.count && !results.isEmpty ? 0 : 1
    }

    /// The article the tour replays, by its title and subject.
    static let article = "the article \"Timers\" (on Foundation's Timer.publish in Combine)"

    /// What the tour is and how to read its table.
    static let introduction = Table.wrapped(
        "The measurements of \(article), replayed on a real Cadence loop with the article's time "
            + "windows (1-6), then its countdown and its exercise, a poller, in virtual time (7, 8). "
            + "Each row shows what was measured, the range the article expects (✗ marks a line "
            + "outside it) and PASS or FAIL; under it, what the experiment does and why it matters.",
        width: Table.noteWidth, indent: "").map { $0 + "\n" }.joined() + "\n"

    /// The results as a table: experiment, measured, expected, result.
    static func table(_ results: [ExperimentResult]) -> Table {
        var table = Table(header: ["experiment", "measured", "expected", "result"])
        for result in results {
            table.notes[table.rows.count] = result.note
            table.rows.append([result.name, result.figure, result.expected, result.passed ? "PASS" : "FAIL"])
        }
        return table
    }
}
