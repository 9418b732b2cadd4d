import CadenceScenarios

/// One row of the tour: a scenario of the corpus in `Tests/Scenarios` that names a tour row
/// (`"tour": "4 blocked thread"`), run exactly as the Swift, C and Python tests run it, so the
/// tour and the tests cannot drift. Rows 1-6 replay the measurements of the article "Timers"
/// (see ``Tour/article``) on a real loop with the article's windows, rows 7 and 8 its countdown
/// and its exercise (a poller) in virtual time.
struct TourExperiment {
    /// The scenario behind the row.
    let scenario: Scenario

    /// The short name shown in the tour's table, such as `4 blocked thread`.
    var name: String { scenario.tourRow ?? scenario.name }

    /// What the experiment does and why it matters, in plain words, printed under its row.
    var note: String { scenario.note }

    /// Every row of the tour, in the order of their names, from the corpus.
    ///
    /// - Throws: ``ScenarioFileError`` when the corpus cannot be read.
    static func all(from directory: String = ScenarioCorpus.defaultDirectory) throws(ScenarioFileError)
        -> [TourExperiment] {
        try ScenarioCorpus(directory: directory).scenarios.filter { $0.tourRow != nil }
            .map(TourExperiment.init).sorted { $0.name < $1.name }
    }

    /// Runs the scenario (each on a real loop takes 0.3 to 1.2 s of real time, each in virtual
    /// time next to none) and returns its checks as the row: one line per check, a line that
    /// failed marked `✗`, and a line for an error that stopped it.
    func run() -> ExperimentResult {
        let outcome = scenario.run()
        var figures: [String] = [], expected: [String] = []
        for check in outcome.checks {
            let (figure, want) = Self.lines(check)
            figures.append(check.passed ? figure : figure + "  ✗")
            expected.append(want)
        }
        if let error = outcome.error {
            figures.append("error: \(error)  ✗")
            expected.append("no error")
        }
        return ExperimentResult(name: name, figure: figures.joined(separator: "\n"),
                                expected: expected.joined(separator: "\n"),
                                passed: outcome.passed && !outcome.checks.isEmpty, note: note)
    }

    /// A check as the table shows it: a timeline in words, two events a line (to keep the
    /// columns narrow), with its expectation on as many lines; anything else on one line.
    static func lines(_ check: ScenarioCheck) -> (figure: String, expected: String) {
        guard check.what == "timeline" else {
            return (check.figure, check.expected.replacing("..", with: "…"))
        }
        func inLines(_ events: String) -> [String] {
            let words = events.split(separator: " ").map { inWords(String($0)) }
            return stride(from: 0, to: words.count, by: 2)
                .map { words[$0..<min($0 + 2, words.count)].joined(separator: ", ") }
        }
        var figure = inLines(check.actual), expected = inLines(check.expected)
        while figure.count < expected.count { figure.append("") }
        while expected.count < figure.count { expected.append("") }
        figure[0] = "\(check.subject): " + figure[0]
        return (figure.joined(separator: ",\n"), expected.joined(separator: ",\n"))
    }

    /// A timeline event in words: `3@1000` is `3 at 1000 ms`, `|@3000` is `finished at 3000 ms`.
    static func inWords(_ event: String) -> String {
        guard let at = event.lastIndex(of: "@") else { return event }
        let value = event[..<at]
        let time = event[event.index(after: at)...]
        return (value == "|" ? "finished" : String(value)) + " at \(time) ms"
    }
}
