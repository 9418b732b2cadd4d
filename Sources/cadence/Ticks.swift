import Cadence
import FoundationEssentials

/// `cadence ticks`: a repeating timer's fires, with their lateness, live, then a summary.
enum Ticks {
    /// Runs a timer every `interval` seconds with `tolerance` for `duration` seconds on a new
    /// loop, printing each fire as it happens and a summary at the end.
    ///
    /// Lateness is a fresh read of the loop's clock, taken first thing in the callback, minus the
    /// tick's fire date. The index counts fires from 1; the fire date is shown in seconds after a
    /// clock read made just before the timer was connected.
    ///
    /// - Throws: a ``CadenceError`` from the loop or the timer.
    static func run(every interval: Double, tolerance: Double, duration: Double) throws(CadenceError) {
        let loop = try Loop()
        defer { try? loop.close() }
        let publisher = try TimerPublisher(every: interval, tolerance: tolerance, on: loop, in: .default)
        Console.out(header(every: interval, tolerance: tolerance, duration: duration))
        Console.out(row("#", "fire date (s)", "lateness (ms)", "skipped"))
        // Written by the callbacks, which run on this thread (loop.run below), read after the run.
        nonisolated(unsafe) var latenesses: [Double] = []
        nonisolated(unsafe) var skipped = 0
        let wakeUpsBefore = loop.wakeups
        let start = loop.now
        let subscription = publisher.subscribe { tick in
            let lateness = loop.now.timeIntervalSince(tick.fireDate)
            latenesses.append(lateness)
            skipped += tick.skipped
            Console.out(row(String(latenesses.count), Format.fixed(tick.fireDate.timeIntervalSince(start), 6),
                            Format.milliseconds(lateness), String(tick.skipped)))
        }
        let connection = publisher.connect()
        try loop.run(for: duration)
        connection.cancel()
        subscription.cancel()
        Console.out(summary(LatenessSummary(latenesses), skipped: skipped, wakeUps: loop.wakeups - wakeUpsBefore))
    }

    /// The first line: the timer's settings, each in a unit that shows it (a 1e-9 s interval is
    /// `1 ns`, not `0 s`), and what lateness means.
    static func header(every interval: Double, tolerance: Double, duration: Double) -> String {
        "timer every \(Format.duration(interval)), tolerance \(Format.duration(tolerance)), "
            + "for \(Format.duration(duration)); lateness = clock read in the callback - fire date\n"
    }

    /// One line of the fire table, columns right-aligned.
    static func row(_ index: String, _ fireDate: String, _ lateness: String, _ skipped: String) -> String {
        Format.pad(index, 6, right: true) + Format.pad(fireDate, 15, right: true)
            + Format.pad(lateness, 15, right: true) + Format.pad(skipped, 9, right: true) + "\n"
    }

    /// The closing summary: count, nearest-rank p50 and p99, largest lateness, early fires,
    /// skipped ticks and wake-ups.
    static func summary(_ stats: LatenessSummary, skipped: Int, wakeUps: UInt64) -> String {
        func ms(_ value: Double?) -> String { value.map { Format.milliseconds($0) + " ms" } ?? "-" }
        return "count \(stats.count)  p50 \(ms(stats.p50))  p99 \(ms(stats.p99))  max \(ms(stats.max))  "
            + "early \(stats.early)  skipped \(skipped)  wake-ups \(wakeUps)\n"
    }
}
