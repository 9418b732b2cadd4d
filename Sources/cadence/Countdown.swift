import Cadence
import FoundationEssentials

/// `cadence countdown`: whole seconds to a deadline, computed from the loop's clock.
enum Countdown {
    /// Whole seconds left until `deadline` at `now`, rounded up; 0 at or after the deadline.
    static func remainingWholeSeconds(until deadline: Date, now: Date) -> Int {
        let left = deadline.timeIntervalSince(now)
        return left > 0 ? Int(left.rounded(.up)) : 0
    }

    /// Counts down `seconds` on a new loop, recomputing every `tick` seconds and at the deadline.
    ///
    /// The value is never decremented per tick: each tick reads the loop's clock and recomputes
    /// from the deadline, so a late or skipped tick costs one stale value, not drift. A one-shot
    /// timer at the deadline shows the final 0 and stops the loop.
    ///
    /// - Throws: a ``CadenceError`` from the loop or a timer.
    static func run(seconds: Double, tick: Double) throws(CadenceError) {
        let width = String(Int(seconds.rounded(.up))).count
        let display = CountdownDisplay(redraw: Console.outputIsTerminal, width: width)
        let loop = try Loop()
        defer { try? loop.close() }
        let deadline = loop.now.addingTimeInterval(seconds)
        display.show(remainingWholeSeconds(until: deadline, now: loop.now))
        guard display.shown != 0 else { return display.finish() }

        let publisher = try TimerPublisher(every: tick, on: loop, in: .default)
        let subscription = publisher.subscribe { _ in
            let value = remainingWholeSeconds(until: deadline, now: loop.now)
            if value > 0 { display.show(value) }
        }
        let connection = publisher.connect()
        let end = try loop.schedule(after: max(0, deadline.timeIntervalSince(loop.now))) { _ in
            display.show(0)
            loop.stop()
        }
        // The one-shot at the deadline stops the run; the extra second is only a bound.
        try loop.run(for: seconds + 1)
        end.cancel()
        connection.cancel()
        subscription.cancel()
        display.finish()
    }
}

/// Shows countdown values: one per line, or redrawn in place on a terminal.
final class CountdownDisplay {
    private let redraw: Bool
    private let width: Int
    /// The value on screen; nil before the first.
    private(set) var shown: Int?

    init(redraw: Bool, width: Int) {
        self.redraw = redraw
        self.width = width
    }

    /// Shows `value` unless it is already shown.
    func show(_ value: Int) {
        guard value != shown else { return }
        shown = value
        Console.out(redraw ? "\r" + Format.pad(String(value), width, right: true) : "\(value)\n")
    }

    /// Ends a redrawn line.
    func finish() {
        if redraw { Console.out("\n") }
    }
}
