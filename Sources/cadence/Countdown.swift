import Cadence
import FoundationEssentials

/// `cadence countdown`: whole seconds to a deadline, from the library's `countdown(to:tick:)` on a loop.
enum Countdown {
    /// Counts down `seconds` on a new loop, recomputing every `tick` seconds and at the deadline.
    ///
    /// The loop is the scheduler of `countdown(to:tick:)`: the stream emits the current value on
    /// the loop's first pass, each change on a tick (computed from the loop's clock and the deadline, never by
    /// counting ticks, so a late or skipped tick costs one stale value, not drift), then 0 at the
    /// deadline and the finish, which stops the loop.
    ///
    /// - Throws: a ``CadenceError`` from the loop or the countdown's timers.
    static func run(seconds: Double, tick: Double) throws(CadenceError) {
        let width = String(Int(seconds.rounded(.up))).count
        let display = CountdownDisplay(redraw: Console.outputIsTerminal, width: width)
        let loop = try Loop()
        defer { try? loop.close() }
        let deadline = loop.now.addingTimeInterval(seconds)
        let subscription = try loop.countdown(to: deadline, tick: tick).subscribe { event in
            switch event {
            case .value(let remaining): display.show(remaining)
            case .finished: loop.stop()
            }
        }
        // The finish at the deadline (on the first pass, for a countdown from 0) stops the run;
        // the extra second is only a bound.
        try loop.run(for: seconds + 1)
        subscription.cancel()
        display.finish()
    }
}

/// Shows countdown values: one per line, or redrawn in place on a terminal.
///
/// Used only on the thread that runs the countdown's loop, where the stream delivers its events.
final class CountdownDisplay: @unchecked Sendable {
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
