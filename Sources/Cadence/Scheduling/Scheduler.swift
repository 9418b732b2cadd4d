import FoundationEssentials

/// Something that runs actions at given dates: a Cadence loop, a `DispatchQueue`, or a
/// ``VirtualScheduler`` for tests. Modelled on Combine's `Scheduler`, with dates as `Date` and
/// strides as seconds.
///
/// Actions are `@Sendable` because a scheduler may run them on another thread (a dispatch queue's,
/// or a loop's own thread).
public protocol Scheduler: AnyObject, Sendable {
    /// The scheduler's clock now: wall-clock time derived from a monotonic clock, or virtual time.
    var now: Date { get }

    /// The smallest tolerance this scheduler honours, in seconds (0: it can fire at the exact date).
    var minimumTolerance: Double { get }

    /// Runs `action` once, at `date` or up to `tolerance` seconds later (at once if `date` has passed).
    ///
    /// - Parameters:
    ///   - date: when to run, on the scale of ``now``; a date in the past means the next chance.
    ///   - tolerance: seconds of allowed lateness, ≥ 0 and finite.
    ///   - action: the work, run once on the scheduler's thread (the loop's, the queue's, or the one
    ///     advancing a virtual clock), unless the returned cancellable is cancelled first.
    /// - Returns: a cancellable whose `cancel()` stops `action` if it has not started. The action
    ///   runs whether or not it is kept (a one-shot is fire-and-forget).
    /// - Throws: ``CadenceError/invalidArgument`` for a date that is not finite (NaN or infinite
    ///   seconds since 1970) or a NaN or negative tolerance; ``CadenceError/badHandle`` if the
    ///   scheduler is closed. When it throws, `action` never runs.
    func schedule(after date: Date, tolerance: Double, _ action: @escaping @Sendable () -> Void)
        throws(CadenceError) -> any Cancellable

    /// Runs `action` at `date`, then every `interval` seconds on that grid, each fire up to
    /// `tolerance` seconds late; missed fires are skipped, not replayed.
    ///
    /// - Parameters:
    ///   - date: the first fire date, on the scale of ``now``.
    ///   - interval: seconds between fire dates, > 0 and finite.
    ///   - tolerance: seconds of allowed lateness per fire, ≥ 0 and finite.
    ///   - action: the work, run on the scheduler's thread once per fire until the returned
    ///     cancellable is cancelled.
    /// - Returns: a cancellable whose `cancel()` stops the repetition. Giving it up (its last
    ///   reference going away) stops the repetition too, on a loop and on a dispatch queue
    ///   (<doc:Lifetimes>): keep it for as long as the action should repeat.
    /// - Throws: ``CadenceError/invalidArgument`` for an interval that is not > 0 and finite, a
    ///   date that is not finite, or a bad tolerance; ``CadenceError/badHandle`` if the scheduler
    ///   is closed. When it throws, `action` never runs.
    func schedule(after date: Date, interval: Double, tolerance: Double,
                  _ action: @escaping @Sendable () -> Void) throws(CadenceError) -> any Cancellable
}

/// A Cadence loop is a scheduler: actions are timers in the ``RunLoopMode/common`` mode, fired on
/// the thread that runs the loop.
extension Loop: Scheduler {
    /// Cadence fires at the exact fire date when the loop is idle, so no tolerance is needed.
    public var minimumTolerance: Double { 0 }

    /// Arms a one-shot timer at `date` in ``RunLoopMode/common``; `action` runs on the thread
    /// that runs the loop (see ``Scheduler/schedule(after:tolerance:_:)``).
    public func schedule(after date: Date, tolerance: Double, _ action: @escaping @Sendable () -> Void)
        throws(CadenceError) -> any Cancellable {
        do {
            let id = try arm(delay: 0, at: try monotonic(at: date), interval: 0,
                             tolerance: try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance"),
                             modeIndex: TimerQueues.commonIndex, action: .closure { _ in action() })
            return ScheduledTimer(loop: self, id: id)
        } catch {
            throw error.in("Loop.schedule(after:tolerance:_:)")
        }
    }

    /// Arms a repeating timer first due at `date` in ``RunLoopMode/common``; `action` runs on the
    /// thread that runs the loop (see ``Scheduler/schedule(after:interval:tolerance:_:)``).
    public func schedule(after date: Date, interval: Double, tolerance: Double,
                         _ action: @escaping @Sendable () -> Void) throws(CadenceError) -> any Cancellable {
        do {
            let id = try arm(delay: 0, at: try monotonic(at: date),
                             interval: try nanoseconds(fromSeconds: interval, allowZero: false, argument: "interval"),
                             tolerance: try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance"),
                             modeIndex: TimerQueues.commonIndex, action: .closure { _ in action() })
            return ScheduledTimer(loop: self, repeating: id)
        } catch {
            throw error.in("Loop.schedule(after:interval:tolerance:_:)")
        }
    }
}

extension Scheduler {
    /// Whether the scheduler's loop was closed, which cancelled its timers: what a poller or a
    /// stream subscription on it reads as having ended (as a C handle of a destroyed loop does).
    var hasClosedLoop: Bool {
        if let loop = self as? Loop { return loop.isClosed }
        if let virtual = self as? VirtualScheduler { return virtual.loop.isClosed }
        return false
    }
}
