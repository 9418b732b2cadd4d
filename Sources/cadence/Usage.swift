/// The help texts: the tool's, and one per command.
enum Usage {
    /// The full help, printed by `cadence help` and `cadence --help`.
    static let tool = """
        usage: cadence <command> [options]

        Timers on a libuv event loop, measured on this machine.

        commands:
          tour                           replay the timer measurements of the article
                                         "Timers" and check each against its expected range
          countdown SECONDS [--tick S]   count down to a deadline in whole seconds
          ticks --every S [--tolerance S] [--for S]
                                         run a repeating timer and report each fire's lateness
          every INTERVAL [--tolerance S] [--count N] -- COMMAND [ARGS...]
                                         run a command every INTERVAL seconds, never two at once
          help [COMMAND]                 show this help, or one command's

        options:
          -h, --help                     show help (after a command: that command's help)
          --version                      show the Cadence version

        Durations are seconds, as decimal numbers (0.25, 1e-3).
        Exit status: 0 success; 1 a failed tour check, a failed run of every's command, or a
        Cadence error; 2 a bad command line; 128 + N when signal N (Ctrl-C: 130) stopped every.

        """

    /// The help for one command, or the tool's for an unknown name.
    static func text(for command: String?) -> String {
        switch command {
        case "tour": return tour
        case "countdown": return countdown
        case "ticks": return ticks
        case "every": return every
        case "help": return help
        default: return tool
        }
    }

    /// The one-line synopsis shown after a bad command line.
    static func synopsis(for command: String?) -> String {
        switch command {
        case "tour": return "usage: cadence tour"
        case "countdown": return "usage: cadence countdown SECONDS [--tick S]"
        case "ticks": return "usage: cadence ticks --every S [--tolerance S] [--for S]"
        case "every": return "usage: cadence every INTERVAL [--tolerance S] [--count N] -- COMMAND [ARGS...]"
        case "help": return "usage: cadence help [COMMAND]"
        default: return "usage: cadence <tour|countdown|ticks|every|help> [options]"
        }
    }

    static let help = """
        usage: cadence help [COMMAND]

        Shows the tool's help, or the help of COMMAND (tour, countdown, ticks, every or help).
        'cadence COMMAND --help' shows the same.

        """

    static let tour = """
        usage: cadence tour

        Replays the measurements of the article "Timers" (on Foundation's Timer.publish in
        Combine), the model Cadence follows, on a real Cadence loop with the article's time
        windows: an unconnected timer, an autoconnected timer shared by two subscribers, run
        loop modes, a blocked thread, tolerance, and a loop nobody runs. Then, in virtual time,
        its countdown (exact events) and its exercise, a poller that never overlaps and pauses
        while inactive. Prints one row per experiment with the measured figures, the range the
        article expects, and PASS or FAIL, and under it what the experiment does and why it
        matters. Takes about five seconds.

        Exit status: 0 if every experiment passes, 1 otherwise.

        """

    static let countdown = """
        usage: cadence countdown SECONDS [--tick S]

        Counts down to a deadline SECONDS from now (0 or more) with the library's
        countdown(to:tick:) on a loop. Prints the remaining whole seconds, rounded up, at once
        and whenever the value changes, then 0 at the deadline, then exits. Each value is
        computed from the loop's clock and the deadline; the timer, every S seconds (default
        0.25, more than 0), only prompts the recomputation, so a late or skipped tick never
        makes the count drift.

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

    static let every = """
        usage: cadence every INTERVAL [--tolerance S] [--count N] -- COMMAND [ARGS...]

        Runs COMMAND (looked up in PATH, with ARGS, no shell) every INTERVAL seconds (more than
        0), never two at once: the library's Poller on a loop, with the given tolerance
        (default 10 % of INTERVAL). The first run starts one INTERVAL after the start; a tick
        that comes while a run is still going starts nothing, and the next run waits for the
        next tick after it ends. Runs share this terminal's standard streams.

        After each run, prints its number, its start lateness in milliseconds (the loop's clock
        when the run started minus the tick it was due on: the latest point, at or before the
        start, of the poll timer's grid, its first fire date plus whole intervals), its duration
        in milliseconds, and its exit status (or the signal that ended it). A COMMAND that
        cannot be started is reported and counts as a failed run with status 127, as a shell
        does.

        Stops after N runs (a whole number, 1 or more) have finished, or on Ctrl-C (SIGINT) or
        SIGTERM: no new run starts, a run still going is waited for (a second signal is passed
        on to it). Then prints a summary: the runs, the failed ones, the p50 (nearest rank) and
        largest lateness, and the ticks skipped because a run was still going.

        Exit status: 0 if every run exited with 0; 1 if one did not; 128 + N when signal N
        stopped it (130 for Ctrl-C); 2 for a bad command line.

        """
}
