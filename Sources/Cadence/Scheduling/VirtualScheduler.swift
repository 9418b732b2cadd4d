import FoundationEssentials

/// A scheduler on virtual time for tests: nothing happens until the test advances the clock, and
/// then every action due runs, in date order, at its exact date (as combine-schedulers'
/// `TestScheduler`). Its clock starts at 0 (dates are virtual seconds since 1970).
///
/// It is a virtual ``Loop`` underneath, so actions are ordinary Cadence timers.
public final class VirtualScheduler: Scheduler, Sendable {
    /// The virtual loop that holds the actions.
    public let loop = Loop.virtual()

    /// Creates a scheduler whose clock reads 0.
    public init() {}

    /// The virtual clock.
    public var now: Date { loop.now }

    /// Actions fire at their exact dates.
    public var minimumTolerance: Double { 0 }

    /// How many actions are scheduled (a repeating action counts once): the timers armed on
    /// ``loop``, as ``Loop/armedTimerCount``.
    public var armedTimerCount: Int { loop.armedTimerCount }

    /// The former name of ``armedTimerCount``.
    @available(*, deprecated, renamed: "armedTimerCount")
    public var pendingCount: Int { armedTimerCount }

    /// Runs everything due in the next `seconds` (≥ 0), stepping the clock to each date.
    ///
    /// - Throws: ``CadenceError/invalidArgument`` for NaN, infinite or negative seconds;
    ///   ``CadenceError/busy`` from inside one of its own actions.
    public func advance(by seconds: Double) throws(CadenceError) {
        do { try loop.run(mode: .default, for: seconds) } catch { throw error.in("VirtualScheduler.advance(by:)") }
    }

    /// Runs everything due up to `date`; a date in the past does nothing.
    ///
    /// - Throws: ``CadenceError/invalidArgument`` for a date that is not finite (NaN or infinite
    ///   seconds since 1970), or as ``advance(by:)-(Double)``.
    public func advance(to date: Date) throws(CadenceError) {
        do throws(CadenceError) {
            guard date.timeIntervalSince1970.isFinite else { throw .badDate("date", date.timeIntervalSince1970) }
            try loop.run(mode: .default, for: max(0, date.timeIntervalSince(now)))
        } catch {
            throw error.in("VirtualScheduler.advance(to:)")
        }
    }

    /// Runs until nothing is scheduled, jumping from one action to the next. Repeating actions
    /// never end on their own, so it stops after `limit` jumps and then throws.
    ///
    /// - Parameter limit: the most jumps, ≥ 0 (0 runs nothing, and throws if anything is pending).
    /// - Throws: ``CadenceError/invalidArgument`` for a negative `limit`; ``CadenceError/busy`` if
    ///   actions are still pending after `limit` jumps (a repeating action that was not
    ///   cancelled), or as ``advance(by:)-(Double)``.
    public func run(limit: Int = 100_000) throws(CadenceError) {
        do throws(CadenceError) {
            guard limit >= 0 else { throw .invalidArgument.with("limit must be >= 0, got \(limit)") }
            for _ in 0..<limit {
                guard let next = loop.nextWake() else { return }
                try loop.run(mode: .default, for: max(0, next.timeIntervalSince(now)))
            }
            if armedTimerCount > 0 {
                throw .busy.with("limit must be more than the jumps the actions need, got \(limit) with "
                                 + "\(armedTimerCount) still pending (a repeating action not cancelled?)")
            }
        } catch {
            throw error.in("VirtualScheduler.run(limit:)")
        }
    }

    /// Schedules a one-shot action; see ``Scheduler/schedule(after:tolerance:_:)``.
    public func schedule(after date: Date, tolerance: Double, _ action: @escaping @Sendable () -> Void)
        throws(CadenceError) -> any Cancellable {
        do { return try loop.schedule(after: date, tolerance: tolerance, action) } catch {
            throw error.in("VirtualScheduler.schedule(after:tolerance:_:)")
        }
    }

    /// Schedules a repeating action; see ``Scheduler/schedule(after:interval:tolerance:_:)``.
    public func schedule(after date: Date, interval: Double, tolerance: Double,
                         _ action: @escaping @Sendable () -> Void) throws(CadenceError) -> any Cancellable {
        do { return try loop.schedule(after: date, interval: interval, tolerance: tolerance, action) } catch {
            throw error.in("VirtualScheduler.schedule(after:interval:tolerance:_:)")
        }
    }
}
