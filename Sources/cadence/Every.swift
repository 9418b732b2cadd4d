import Cadence
import FoundationEssentials
import Glibc

/// `cadence every`: a command run by the library's ``Poller`` on a loop, every interval, never two
/// at once, with each run's start lateness and duration, then a summary.
enum Every {
    /// Runs `command` every `interval` seconds until `count` runs have finished (nil: no limit) or
    /// SIGINT or SIGTERM arrives; returns the exit status: 0 if every run exited with 0, 1 if one
    /// did not (or could not be started), 128 plus the signal when one stopped it.
    ///
    /// The poll timer is the Poller's, on a new loop, with `tolerance` (nil: the Poller's default,
    /// 10 % of the interval); the first run starts one interval after the start. A run's
    /// operation spawns the command and returns; a detached thread waits for the child and hands
    /// its end back to the loop, which prints the run's line and then reports the poll finished.
    /// A tick that comes while a run is going starts nothing (it is counted as skipped).
    ///
    /// - Throws: a ``CadenceError`` from the loop or the poller.
    static func run(interval: Double, tolerance: Double?, count: Int?,
                    command: [String]) throws(CadenceError) -> Int32 {
        let loop = try Loop()
        defer { try? loop.close() }
        // The Poller does not tell its operation which tick started it; the probe records the poll
        // timer's first fire date and interval (its grid) and counts the timer's fires.
        let probe = SchedulerProbe(loop)
        let runs = CommandRuns(loop: loop, probe: probe, command: command, limit: count)
        // Before any thread starts, so that every thread blocks the signals but the watcher's.
        Interrupts.watch { signal in
            _ = try? loop.schedule(after: loop.now, tolerance: 0) { runs.interrupt(by: signal) }
        }
        let poller = try Poller(every: interval, tolerance: tolerance, on: probe) { completion in
            runs.start(completion: completion)
        }
        runs.poller = poller
        Console.out("every \(Format.duration(interval)), tolerance \(Format.duration(poller.tolerance))"
                    + "\(count.map { ", \($0) run\($0 == 1 ? "" : "s")" } ?? ""): \(shellWords(command))\n"
                    + "lateness = loop clock at the start - the tick it was due on (poll timer's grid)\n")
        Console.out(row("run", "lateness (ms)", "duration (ms)", "status"))
        while !runs.isDone {
            try loop.run(for: 3_600)
        }
        poller.cancel()
        runs.poller = nil
        let skipped = probe.repeatingFires - poller.pollCount
        Console.out(summary(runs: runs.finished, failed: runs.failed, LatenessSummary(runs.latenesses),
                            skipped: skipped))
        if let signal = runs.interruption { return 128 + signal }
        return runs.failed == 0 ? 0 : 1
    }

    /// One line of the run table, columns right-aligned.
    static func row(_ run: String, _ lateness: String, _ duration: String, _ status: String) -> String {
        Format.pad(run, 6, right: true) + Format.pad(lateness, 15, right: true)
            + Format.pad(duration, 15, right: true) + Format.pad(status, 9, right: true) + "\n"
    }

    /// The closing summary: finished and failed runs, p50 (nearest rank) and largest start
    /// lateness, and the ticks that found a run still going.
    static func summary(runs: Int, failed: Int, _ lateness: LatenessSummary, skipped: Int) -> String {
        func ms(_ value: Double?) -> String { value.map { Format.milliseconds($0) + " ms" } ?? "-" }
        return "runs \(runs)  failed \(failed)  lateness p50 \(ms(lateness.p50))  max \(ms(lateness.max))  "
            + "skipped \(skipped) tick\(skipped == 1 ? "" : "s") (a run was still going)\n"
    }

    /// The command as a shell would read it back: words with spaces or quotes in single quotes.
    static func shellWords(_ command: [String]) -> String {
        command.map { word in
            let plain = !word.isEmpty && word.allSatisfy { !" \t\n'\"\\$`;&|<>()*?[]#~".contains($0) }
            return plain ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false)
                .joined(separator: "'\\''") + "'"
        }.joined(separator: " ")
    }
}

/// The runs of one `cadence every`: what is running, what has finished, and when to stop.
///
/// Used only on the loop's thread (the poller's operation, the hand-offs from the waiting threads
/// and the signal hand-offs all run there), so it needs no lock.
final class CommandRuns: @unchecked Sendable {
    private let loop: Loop
    private let probe: SchedulerProbe
    private let command: [String]
    private let limit: Int?
    /// The poller, cancelled once the last run has started or a signal came.
    var poller: Poller?
    /// Runs started and finished, and those that did not exit with 0.
    private var started = 0
    private(set) var finished = 0
    private(set) var failed = 0
    /// The start lateness of every run, in seconds.
    private(set) var latenesses: [Double] = []
    /// The child of the run going on now.
    private var running: (number: Int, pid: pid_t)?
    /// The first signal that arrived, if one did.
    private(set) var interruption: Int32?
    /// Whether the loop may stop: the last run has finished, or a signal came and no run is going.
    private(set) var isDone = false

    init(loop: Loop, probe: SchedulerProbe, command: [String], limit: Int?) {
        self.loop = loop
        self.probe = probe
        self.command = command
        self.limit = limit
    }

    /// Starts a run: the poller's operation. Spawns the command and returns; `completion` is called
    /// after the run's line is printed. A command that cannot be spawned is a failed run with
    /// status 127, as in a shell.
    func start(completion: @escaping @Sendable () -> Void) {
        let start = loop.now
        started += 1
        let number = started
        let lateness = start.timeIntervalSince(dueDate(startingAt: start))
        if let limit, started >= limit { poller?.cancel() }
        switch ChildProcess.spawn(command) {
        case .failure(let error):
            Console.err("cadence: cannot run '\(command[0])': \(error.message)\n")
            end(number, lateness: lateness, duration: loop.now.timeIntervalSince(start), status: "127", failed: true)
            completion()
        case .success(let pid):
            running = (number, pid)
            ChildProcess.wait(for: pid) { [loop] termination in
                let duration = loop.now.timeIntervalSince(start)
                _ = try? loop.schedule(after: loop.now, tolerance: 0) {
                    self.running = nil
                    self.end(number, lateness: lateness, duration: duration, status: termination.description,
                             failed: !termination.succeeded)
                    completion()
                }
            }
        }
    }

    /// The first signal stops polling: the loop stops now, or when the running child ends. Later
    /// signals are passed on to that child.
    func interrupt(by signal: Int32) {
        guard interruption == nil else {
            if let running { kill(running.pid, signal) }
            return
        }
        interruption = signal
        poller?.cancel()
        if let running {
            Console.err("cadence: \(ChildProcess.signalName(signal)): stopping after run \(running.number) "
                        + "(pid \(running.pid)) ends\n")
        } else {
            stop()
        }
    }

    /// The tick a poll starting at `start` was due on: the latest point at or before it of the poll
    /// timer's grid (its first fire date plus whole intervals). A poll starts only on a tick, and a
    /// late tick reports the latest grid point, so this is the tick's fire date.
    private func dueDate(startingAt start: Date) -> Date {
        guard let grid = probe.repeating.first else { return start }
        // Dates are doubles: allow a rounding error of 0.1 µs on a start right at a grid point.
        let intervals = ((start.timeIntervalSince(grid.start) + 1e-7) / grid.interval).rounded(.down)
        return grid.start.addingTimeInterval(max(0, intervals) * grid.interval)
    }

    private func end(_ number: Int, lateness: Double, duration: Double, status: String, failed isFailure: Bool) {
        finished += 1
        if isFailure { failed += 1 }
        latenesses.append(lateness)
        Console.out(Every.row(String(number), Format.milliseconds(lateness), Format.fixed(duration * 1000, 1),
                              status))
        if interruption != nil || (limit.map { finished >= $0 } ?? false) { stop() }
    }

    private func stop() {
        isDone = true
        loop.stop()
    }
}
