import Cadence
import FoundationEssentials

/// A scheduler that forwards to another one and records what its repeating timers were asked for
/// and how often they fired: the "scheduler that records the tolerance it is given" of the seed
/// article's exercise.
///
/// A ``Poller`` hands its operation only a completion, not the tick that started it; through a
/// probe, `cadence every` learns the poll timer's grid (its first fire date and interval) and
/// counts its fires, so that ticks which found a run still going are fires minus polls.
final class SchedulerProbe: Scheduler, @unchecked Sendable {
    /// One call to ``schedule(after:interval:tolerance:_:)``.
    struct Repeating: Equatable {
        /// The first fire date.
        let start: Date
        /// Seconds between fires.
        let interval: Double
        /// Seconds of tolerance.
        let tolerance: Double
    }

    private let inner: any Scheduler
    private let lock = Lock()
    // Guarded by `lock`:
    private var recorded: [Repeating] = []
    private var fired = 0

    /// Forwards to `scheduler`.
    init(_ scheduler: some Scheduler) { inner = scheduler }

    /// The repeating timers asked for, in order.
    var repeating: [Repeating] { lock.withLock { recorded } }

    /// How many times the repeating timers have fired, all together.
    var repeatingFires: Int { lock.withLock { fired } }

    var now: Date { inner.now }

    var minimumTolerance: Double { inner.minimumTolerance }

    func schedule(after date: Date, tolerance: Double, _ action: @escaping @Sendable () -> Void)
        throws(CadenceError) -> any Cancellable {
        try inner.schedule(after: date, tolerance: tolerance, action)
    }

    func schedule(after date: Date, interval: Double, tolerance: Double,
                  _ action: @escaping @Sendable () -> Void) throws(CadenceError) -> any Cancellable {
        let timer = try inner.schedule(after: date, interval: interval, tolerance: tolerance) {
            self.lock.withLock { self.fired += 1 }
            action()
        }
        lock.withLock { recorded.append(Repeating(start: date, interval: interval, tolerance: tolerance)) }
        return timer
    }
}
