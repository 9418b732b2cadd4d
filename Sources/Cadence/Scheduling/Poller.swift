import FoundationEssentials

/// Runs an operation every interval on a scheduler, never overlapping, and only while active:
/// the status poller of the first seed article's exercise.
///
/// - A poll starts on each tick unless the previous operation has not finished: a slow operation
///   delays the next poll to the first tick after it finishes, instead of stacking (as Combine's
///   `flatMap(maxPublishers: .max(1))` drops ticks without demand).
/// - While inactive (``setActive(_:)`` with `false`) the timer is removed and nothing polls; turning
///   active again polls at once and restarts the ticks one interval later.
/// - The timer's tolerance is 10 % of the interval unless given (Apple's advice for repeating timers).
///
/// The operation runs on the scheduler's thread and reports completion by calling the closure it
/// is given, from any thread, at any later time; calling it twice is harmless.
public final class Poller: Cancellable, @unchecked Sendable {
    /// Seconds between polls.
    public let interval: Double
    /// Seconds of lateness the poll timer may use.
    public let tolerance: Double
    private let scheduler: any Scheduler
    private let operation: @Sendable (_ completion: @escaping @Sendable () -> Void) -> Void
    private let lock = Lock()
    // Guarded by `lock`:
    private var timer: (any Cancellable)?
    private var immediate: (any Cancellable)?  // the poll at once of the last resume
    private var active = true
    private var cancelled = false
    private var running: Int?  // the number of the poll in flight
    private var polls = 0

    /// Creates a poller and starts its ticks: the first poll comes one interval from now.
    ///
    /// - Parameters:
    ///   - interval: seconds between polls, > 0 and finite.
    ///   - tolerance: seconds of lateness for the timer, ≥ 0 and finite; `nil` means 10 % of `interval`.
    ///   - scheduler: where the ticks and the operation run.
    ///   - operation: starts one poll and calls its argument when the poll has finished.
    /// - Throws: ``CadenceError/invalidArgument`` for a bad interval or tolerance, or what the
    ///   scheduler throws; then the operation never runs.
    public init(every interval: Double, tolerance: Double? = nil, on scheduler: some Scheduler,
                operation: @escaping @Sendable (_ completion: @escaping @Sendable () -> Void) -> Void) throws(CadenceError) {
        let call = "Poller(every:tolerance:on:operation:)"
        do { _ = try nanoseconds(fromSeconds: interval, allowZero: false, argument: "interval") } catch { throw error.in(call) }
        let tolerance = tolerance ?? interval / 10
        do { _ = try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance") } catch { throw error.in(call) }
        self.interval = interval
        self.tolerance = tolerance
        self.scheduler = scheduler
        self.operation = operation
        do { try lock.withLock { () throws(CadenceError) in try startTimerLocked() } } catch { throw error.in(call) }
    }

    /// Creates a poller whose operation is an `async` function; a poll finishes when it returns.
    public convenience init(every interval: Double, tolerance: Double? = nil, on scheduler: some Scheduler,
                            operation: @escaping @Sendable () async -> Void) throws(CadenceError) {
        try self.init(every: interval, tolerance: tolerance, on: scheduler) { completion in
            Task {
                await operation()
                completion()
            }
        }
    }

    /// Pauses (`false`) or resumes (`true`) polling. Resuming polls at once (on the scheduler's
    /// next pass, on its thread, unless a poll is still running) and restarts the ticks from now.
    /// Setting the current state again does nothing. Callable from any thread.
    public func setActive(_ isActive: Bool) {
        let removed = lock.withLock { () -> [any Cancellable] in
            guard !cancelled, isActive != active else { return [] }
            active = isActive
            let removed = takeTimersLocked()
            if isActive {
                immediate = try? scheduler.schedule(after: scheduler.now, tolerance: 0) { [weak self] in self?.poll() }
                try? startTimerLocked()
            }
            return removed
        }
        removed.forEach { $0.cancel() }
    }

    /// Whether polling is active.
    public var isActive: Bool { lock.withLock { active && !cancelled } }

    /// Whether an operation is running now.
    public var isPolling: Bool { lock.withLock { running != nil } }

    /// How many polls have started.
    public var pollCount: Int { lock.withLock { polls } }

    /// Stops polling for good and removes the timer; a running operation may finish.
    public func cancel() {
        let removed = lock.withLock { () -> [any Cancellable] in
            cancelled = true
            return takeTimersLocked()
        }
        removed.forEach { $0.cancel() }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// Takes the tick timer and a pending poll at once out of the poller, for the caller to cancel
    /// after releasing `lock`: cancelling a loop's timer from another thread waits for its running
    /// callback, which may be a poll waiting for `lock`.
    private func takeTimersLocked() -> [any Cancellable] {
        defer { timer = nil; immediate = nil }
        return [timer, immediate].compactMap { $0 }
    }

    private func startTimerLocked() throws(CadenceError) {
        timer = try scheduler.schedule(after: scheduler.now.addingTimeInterval(interval), interval: interval,
                                       tolerance: tolerance) { [weak self] in self?.poll() }
    }

    private func poll() {
        let number: Int? = lock.withLock {
            guard active, !cancelled, running == nil else { return nil }
            polls += 1
            running = polls
            return polls
        }
        guard let number else { return }
        operation { [weak self] in self?.finish(number) }
    }

    private func finish(_ number: Int) {
        lock.withLock { if running == number { running = nil } }
    }
}
