import FoundationEssentials
import Synchronization

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
///
/// Giving the poller up (its last reference going away) cancels it, as ``cancel()`` does;
/// ``detach()`` keeps it polling without a reference (<doc:Lifetimes>). Its timers hold only the
/// polling state, never this object.
public final class Poller: Cancellable, Detachable, Sendable {
    /// Seconds between polls.
    public let interval: Double
    /// Seconds of lateness the poll timer may use.
    public let tolerance: Double
    let core: PollerCore
    private let detached = Atomic(false)

    /// Creates a poller and starts its ticks: the first poll comes one interval from now.
    ///
    /// - Parameters:
    ///   - interval: seconds between polls, > 0 and finite.
    ///   - tolerance: seconds of lateness for the timer, ≥ 0 and finite; `nil` means 10 % of `interval`.
    ///   - scheduler: where the ticks and the operation run.
    ///   - operation: starts one poll and calls its argument when the poll has finished.
    /// - Throws: ``CadenceError/invalidArgument`` for a bad interval or tolerance, or what the
    ///   scheduler throws; then the operation never runs.
    public convenience init(every interval: Double, tolerance: Double? = nil, on scheduler: some Scheduler,
                            operation: @escaping @Sendable (_ completion: @escaping @Sendable () -> Void) -> Void) throws(CadenceError) {
        try self.init(every: interval, tolerance: tolerance, on: scheduler, life: nil) { _, completion in operation(completion) }
        try start()
    }

    /// A poller that calls a C registration's handler of type `type` with `words`
    /// (`cadence_poller_start`), as armed on the loop's host functions set now
    /// (``PlainTimerHandler/armed(_:loop:)``), its polls naming `source` (its handle) and finished
    /// by number (``finish(poll:)``); not started (``start()``). The handler's end comes once it is
    /// cancelled (after a poll's call that is running has returned) or its loop is closed
    /// (``PollerCore/endLife()``).
    ///
    /// - Throws: ``CadenceError/invalidArgument`` for a bad interval or tolerance; what the
    ///   handler's `armed` throws.
    package static func calling(_ words: HandlerWords, of type: any PlainPollHandler.Type, every interval: Double,
                                tolerance: Double?, on loop: Loop, source: UInt64) throws(CadenceError) -> Poller {
        let words = try type.armed(words, loop: loop.functionWords).words
        let life = HandlerLife.make((words, type))
        do throws(CadenceError) {
            return try Poller(every: interval, tolerance: tolerance, on: loop, life: life) { number, _ in
                life.run {
                    type.poll(words, number: number, date: loop.nowSeconds, source: source)
                    return false
                }
            }
        } catch {
            life?.abandon()  // a registering call that fails calls nothing
            throw error
        }
    }

    /// The initializers' one body, with the operation given each poll's number: checks the
    /// interval and tolerance, and starts nothing.
    private init(every interval: Double, tolerance: Double?, on scheduler: some Scheduler, life: HandlerLife?,
                 operation: @escaping @Sendable (_ number: Int, _ completion: @escaping @Sendable () -> Void) -> Void)
        throws(CadenceError) {
        do { _ = try nanoseconds(fromSeconds: interval, allowZero: false, argument: "interval") } catch { throw error.in(Self.call) }
        let tolerance = tolerance ?? interval / 10
        do { _ = try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance") } catch { throw error.in(Self.call) }
        self.interval = interval
        self.tolerance = tolerance
        core = PollerCore(interval: interval, tolerance: tolerance, scheduler: scheduler, life: life, operation: operation)
    }

    /// The public initializer's name, for its errors.
    private static let call = "Poller(every:tolerance:on:operation:)"

    /// Starts the ticks: the first poll comes one interval from now.
    ///
    /// - Throws: what the scheduler throws; then the operation never runs.
    package func start() throws(CadenceError) {
        do { try core.start() } catch { throw error.in(Self.call) }
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

    deinit {
        if !detached.load(ordering: .acquiring) { _ = core.cancel() }
    }

    /// Pauses (`false`) or resumes (`true`) polling. Resuming polls at once (on the scheduler's
    /// next pass, on its thread, unless a poll is still running) and restarts the ticks from now.
    /// Setting the current state again does nothing. Callable from any thread.
    public func setActive(_ isActive: Bool) { core.setActive(isActive) }

    /// Whether polling is active.
    public var isActive: Bool { core.isActive }

    /// Whether an operation is running now.
    public var isPolling: Bool { core.isPolling }

    /// How many polls have started.
    public var pollCount: Int { core.pollCount }

    /// Stops polling for good and removes the timer; a running operation may finish.
    ///
    /// - Returns: whether this call stopped the poller (`false` if it was cancelled already).
    @discardableResult
    public func cancel() -> Bool { core.cancel().stopped }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { core.isCancelled }

    /// Finishes poll `number` (the number its operation was given), as its completion does.
    ///
    /// - Returns: false if that poll is not running: finished already, or never started.
    package func finish(poll number: Int) -> Bool { core.finish(number) }

    /// Keeps the poller polling once it is given up: afterwards its deinit does not cancel it, and
    /// it polls until ``cancel()`` (through a reference kept after all) or until its scheduler
    /// stops (a loop's ``Loop/close()``). Calling it again does nothing.
    public func detach() { detached.store(true, ordering: .releasing) }
}

/// A poller's state and timers. The timers' actions hold this, not the ``Poller``, so that the
/// poller given up deinitializes (and cancels), and a detached one keeps polling. A poller that
/// calls a C function has its userdata's ``HandlerLife``, which a cancel ends. A cancel lets go
/// of the operation, so that a cancelled poller kept in a variable keeps nothing it captured.
final class PollerCore: Sendable {
    private typealias Operation = @Sendable (_ number: Int, _ completion: @escaping @Sendable () -> Void) -> Void
    private let interval: Double
    private let tolerance: Double
    private let scheduler: any Scheduler
    private let life: HandlerLife?
    private struct State {
        var operation: Operation?  // nil once cancelled
        var timer: (any Cancellable)?
        var immediate: (any Cancellable)?  // the poll at once of the last resume
        var active = true
        var cancelled = false
        var running: Int?  // the number of the poll in flight
        var polls = 0

        /// Takes the tick timer and a pending poll at once out of the poller, for the caller to
        /// cancel after releasing the lock: cancelling a loop's timer from another thread waits
        /// for its running callback, which may be a poll waiting for the lock.
        mutating func takeTimers() -> [any Cancellable] {
            defer { timer = nil; immediate = nil }
            return [timer, immediate].compactMap { $0 }
        }
    }

    private let state: LockedState<State>

    init(interval: Double, tolerance: Double, scheduler: any Scheduler, life: HandlerLife?,
         operation: @escaping @Sendable (_ number: Int, _ completion: @escaping @Sendable () -> Void) -> Void) {
        self.interval = interval
        self.tolerance = tolerance
        self.scheduler = scheduler
        self.life = life
        state = LockedState(State(operation: operation))
    }

    func start() throws(CadenceError) {
        try state.withLock { (state: inout State) throws(CadenceError) in try startTimer(&state) }
    }

    func setActive(_ isActive: Bool) {
        let removed = state.withLock { state -> [any Cancellable] in
            guard !state.cancelled, isActive != state.active else { return [] }
            state.active = isActive
            let removed = state.takeTimers()
            if isActive {
                state.immediate = try? scheduler.schedule(after: scheduler.now, tolerance: 0) { [self] in poll() }
                try? startTimer(&state)
            }
            return removed
        }
        removed.forEach { $0.cancel() }
    }

    var isActive: Bool { state.withLock { $0.active && !$0.cancelled } && !scheduler.hasClosedLoop }
    var isPolling: Bool { state.withLock { $0.running != nil } }
    var pollCount: Int { state.withLock { $0.polls } }
    var isCancelled: Bool { state.withLock { $0.cancelled } || scheduler.hasClosedLoop }

    /// Stops polling; false if it had stopped already (cancelled, or its loop closed). Once the
    /// timers' cancels have returned (a poll's call on another thread waited for), a C
    /// operation's userdata is released.
    func cancel(handingBack: Bool = false) -> (stopped: Bool, key: Int) {
        let removed = state.withLock { state -> [any Cancellable]? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            state.operation = nil
            return state.takeTimers()
        }
        guard let removed else { return (false, 0) }  // the cancel that stopped it releases
        removed.forEach { $0.cancel() }
        let stopped = !scheduler.hasClosedLoop  // read first: the release may destroy the loop
        return (stopped, life?.finish(handingBack: handingBack) ?? 0)
    }

    /// The loop was closed, which removed the timers: releases a C operation's userdata.
    func endLife() { life?.finish() }

    /// The registering call failed: stops without releasing the userdata.
    func abandon() {
        life?.abandon()
        _ = cancel()
    }

    /// Arms the tick timer; called with the lock held. Its action holds this core until the timer
    /// is cancelled (the cycle that a cancel, the poller's deinit or the loop's close breaks).
    private func startTimer(_ state: inout State) throws(CadenceError) {
        state.timer = try scheduler.schedule(after: scheduler.now.addingTimeInterval(interval), interval: interval,
                                             tolerance: tolerance) { [self] in poll() }
    }

    private func poll() {
        let started: (number: Int, operation: Operation)? = state.withLock { state in
            guard state.active, let operation = state.operation, state.running == nil else { return nil }
            state.polls += 1
            state.running = state.polls
            return (state.polls, operation)
        }
        guard let (number, operation) = started else { return }
        operation(number) { [weak self] in _ = self?.finish(number) }
    }

    /// Ends poll `number`; false if it is not the one running.
    func finish(_ number: Int) -> Bool {
        state.withLock { state in
            guard state.running == number else { return false }
            state.running = nil
            return true
        }
    }
}
