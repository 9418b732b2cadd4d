/// The help texts: the tool's, and one per command.
enum Usage {
    /// The full help, printed by `cadence help` and `cadence --help`.
    static let tool = """
        usage: cadence <command> [options]

        Timers on a libuv event loop, measured on this machine.

        commands:
          tour                           replay the timer measurements of the seed article
                                         and check each against its expected range
          countdown SECONDS [--tick S]   count down to a deadline in whole seconds
          ticks --every S [--tolerance S] [--for S]
                                         run a repeating timer and report each fire's lateness
          help [COMMAND]                 show this help, or one command's

        options:
          -h, --help                     show help (after a command: that command's help)
          --version                      show the Cadence version

        Durations are seconds, as decimal numbers (0.25, 1e-3).
        Exit status: 0 success; 1 a failed tour check or a Cadence error; 2 a bad command line.

        """

    /// The help for one command, or the tool's for an unknown name.
    static func text(for command: String?) -> String {
        switch command {
        case "tour": return tour
        case "countdown": return countdown
        case "ticks": return ticks
        default: return tool
        }
    }

    /// The one-line synopsis shown after a bad command line.
    static func synopsis(for command: String?) -> String {
        switch command {
        case "tour": return "usage: cadence tour"
        case "countdown": return "usage: cadence countdown SECONDS [--tick S]"
        case "ticks": return "usage: cadence ticks --every S [--tolerance S] [--for S]"
        default: return "usage: cadence <tour|countdown|ticks|help> [options]"
        }
    }

    static let tour = """
        usage: cadence tour

        Replays the measurements of the seed article "Timers" on a real Cadence loop, with the
        article's windows: an unconnected timer, an autoconnected timer shared by two
        subscribers, run loop modes, a blocked thread, tolerance, and a loop nobody runs.
        Prints one row per experiment with the measured figures, the expected range, and
        PASS or FAIL. Takes about five seconds.

        Exit status: 0 if every experiment passes, 1 otherwise.

        """

    static let countdown = """
        usage: cadence countdown SECONDS [--tick S]

        Counts down to a deadline SECONDS from now (0 or more). Prints the remaining whole
        seconds, rounded up, at once and whenever the value changes, then 0 at the deadline,
        then exits. Each value is computed from the loop's clock and the deadline; the timer,
        every S seconds (default 0.25, more than 0), only prompts the recomputation, so a
        late or skipped tick never makes the count drift.

        On a terminal the count is redrawn on one line; otherwise one value per line.

        """

    static let ticks = """
        usage: cadence ticks --every S [--tolerance S] [--for S]

        Runs a repeating timer every S seconds (more than 0) with the given tolerance
        (default 0) for the given time (default 1, more than 0), and prints each fire:
        its index (from 1), its fire date as seconds after the start, its lateness in
        milliseconds (a fresh clock read in the callback minus the fire date), and the
        ticks it skipped. Then a summary: the count, the p50, p99 and largest lateness
        (percentiles by nearest rank), the fires that came early (lateness below 0),
        the ticks skipped, and the loop's wake-ups.

        """
}
