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
