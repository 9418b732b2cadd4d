/// The outcome of one tour experiment: what was measured, what was expected, and whether the
/// measurement is in the expected range. Pure data, so experiments can be tested without output.
struct ExperimentResult: Equatable {
    /// A short name, such as `4 blocked thread`.
    let name: String
    /// The measured figures, one line per check (lines separated by `\n`).
    let figure: String
    /// The expected range for each line of ``figure``.
    let expected: String
    /// Whether every check passed.
    let passed: Bool
    /// What the experiment does and why it matters, in plain words (``TourExperiment/note``).
    var note: String = ""
}

/// Collects the checks of one experiment, one line each, into an ``ExperimentResult``.
struct Checks {
    private var figures: [String] = []
    private var expectations: [String] = []
    private var allPassed = true

    /// Records one measured `figure` against its `expected` range; a failed line is marked `✗`.
    mutating func add(_ figure: String, expected: String, _ passed: Bool) {
        figures.append(passed ? figure : figure + "  ✗")
        expectations.append(expected)
        allPassed = allPassed && passed
    }

    /// The result named `name`, with `note`; it passes if every check did (and there was at
    /// least one).
    func result(_ name: String, note: String) -> ExperimentResult {
        ExperimentResult(name: name, figure: figures.joined(separator: "\n"),
                         expected: expectations.joined(separator: "\n"),
                         passed: allPassed && !figures.isEmpty, note: note)
    }
}
