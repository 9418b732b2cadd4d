/// One expectation of a scenario as checked: what was measured against what the scenario says.
public struct ScenarioCheck: Sendable {
    /// What was measured: a record's name (`loop` for the loop's counters).
    public let subject: String
    /// The expectation's field, such as `new` or `timeline` (README.md lists them).
    public let what: String
    /// The value measured, as the scenario would write it (`none` for an empty timeline).
    public let actual: String
    /// The expected value or range, as the scenario writes it.
    public let expected: String
    /// Whether the measurement matched.
    public let passed: Bool

    /// The measurement in one line, such as `ticks new: 6` or `s timeline: 0@1000 1@2000`.
    public var figure: String { "\(subject) \(what): \(actual)" }
}

/// What running a scenario gave: every check, and the first error if a step failed.
public struct ScenarioOutcome: Sendable {
    /// The checks of its expect steps, in order (none after a failed step).
    public let checks: [ScenarioCheck]
    /// Why a step could not run (a thrown error, an unknown step), if one could not.
    public let error: String?

    /// Whether every check passed and every step ran.
    public var passed: Bool { error == nil && checks.allSatisfy(\.passed) }

    /// The first thing that went wrong, in one line; nil if it passed.
    public var failure: String? {
        error ?? checks.first { !$0.passed }.map { "\($0.figure), expected \($0.expected)" }
    }
}
