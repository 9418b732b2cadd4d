// SE-0505's `SchedulingExecutor` is SPI in the 6.3 toolchain (`@_spi(ExperimentalScheduling)`),
// so it may change with the toolchain: it is used here alone, in a module of its own that a
// program opts into, so that the rest of Cadence builds whatever becomes of it.
@_spi(ExperimentalScheduling) import _Concurrency
import Cadence

/// A loop as a `SchedulingExecutor` (SE-0505, SPI in Swift 6.3): a `Task.sleep` in a task on the
/// loop's executor (`Task(executorPreference: loop)`) is a Cadence one-shot timer on the loop.
///
/// The Swift runtime hands the job that ends the sleep to the executor of the sleeping task, with
/// the deadline and tolerance; the loop arms a one-shot timer in ``RunLoopMode/common`` with them,
/// so the sleep never ends early (on a virtual loop, but for the exception below), coalesces with
/// the loop's other timers and sleeps within its tolerance, and the loop must be running for it to
/// end (as for ``LoopClock``). A cancelled sleep frees its timer before `Task.cancel()` returns. Importing this module is what opts a program
/// in: without it the runtime sends such sleeps to Dispatch (which ignores tolerance on Linux).
///
/// Deadlines of other clocks are converted at the call: `ContinuousClock` (CLOCK_BOOTTIME on
/// Linux) and `SuspendingClock` by the time left to the deadline, read from the clock when the
/// runtime calls, rounded up to a whole nanosecond; ``LoopClock`` of the same loop is taken as it
/// is. On a virtual loop the time left becomes virtual time, where the clock stands still while
/// the sleeping task runs: the runtime computes the deadline from the real clock a moment before
/// it calls the executor, so the loop finds the time left at the task's own reading of the clock
/// from the start of the task's job and the job's running time, whatever the thread's load, and
/// `Task.sleep(for: .milliseconds(1500))` sleeps exactly 1.5 virtual seconds. Such a sleep within
/// a few microseconds of a whole millisecond is that millisecond; any other is rounded up to the
/// next one, never less. The one exception to "never early" is on a virtual loop: a sleep past a
/// whole millisecond by less than the runtime's hand-over (about a microsecond), or by about a
/// preemption after the task's clock read, hands the loop what the whole millisecond would, and
/// is read as it (`.nanoseconds(1)` sleeps no virtual time, `.nanoseconds(1_000_001)` 1 ms). A delay (``enqueue(_:after:tolerance:clock:)``) is exact to the
/// nanosecond. Code that must be exact at any resolution sleeps on ``Loop/clock`` (see
/// <doc:ClocksAndAsyncCode>). A clock whose durations are not `Duration` sleeps on its own clock
/// in a task, then queues the job on the loop.
@_spi(ExperimentalScheduling) extension Loop: SchedulingExecutor {
    /// Runs `job` on the loop no earlier than `instant` of `clock`, and up to `tolerance` later:
    /// called by the Swift runtime for `Task.sleep` on the loop's executor.
    ///
    /// - Parameters:
    ///   - job: the job that ends a sleep.
    ///   - instant: the deadline, on `clock`.
    ///   - tolerance: allowed lateness; nil or negative means none.
    ///   - clock: the clock of `instant`.
    public func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant,
                                  tolerance: C.Duration?, clock: C) {
        let unowned = UnownedJob(job)
        if let loopClock = clock as? LoopClock, loopClock.loop === self,
           let deadline = instant as? LoopClock.Instant {
            return enqueue(unowned, at: deadline.nanoseconds, tolerance: nanoseconds(tolerance))
        }
        if isVirtual, let deadline = instant as? ContinuousClock.Instant {  // `Task.sleep(for:)`
            return enqueue(unowned, at: self.deadline(after: .nanoseconds(virtualTimeLeft(until: deadline))),
                           tolerance: nanoseconds(tolerance))
        }
        guard let left = clock.now.duration(to: instant) as? Duration else {
            return enqueueLater(unowned, at: instant, tolerance: tolerance, clock: clock)
        }
        let wait = isVirtual ? .nanoseconds(virtualTimeLeft(realTimeLeft: left)) : left
        enqueue(unowned, at: deadline(after: wait), tolerance: nanoseconds(tolerance))
    }

    /// Runs `job` on the loop no earlier than `delay` from now on `clock`'s scale, and up to
    /// `tolerance` later.
    ///
    /// - Parameters:
    ///   - job: the job to run.
    ///   - delay: the time to wait; zero or negative runs it on the next pass.
    ///   - tolerance: allowed lateness; nil or negative means none.
    ///   - clock: the clock whose durations `delay` and `tolerance` are.
    public func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration,
                                  tolerance: C.Duration?, clock: C) {
        let unowned = UnownedJob(job)
        guard let delay = delay as? Duration else {
            return enqueueLater(unowned, at: clock.now.advanced(by: delay), tolerance: tolerance, clock: clock)
        }
        enqueue(unowned, at: deadline(after: delay), tolerance: nanoseconds(tolerance))
    }

    /// The loop-clock deadline `left` from now, rounded up to a whole nanosecond (never early).
    private func deadline(after left: Duration) -> UInt64 {
        clock.now.advanced(by: left).nanoseconds
    }

    /// Whole nanoseconds of a tolerance, rounded down; 0 for nil, negative or a duration that is
    /// not `Duration`.
    private func nanoseconds<D>(_ tolerance: D?) -> UInt64 {
        guard let tolerance = tolerance as? Duration, tolerance > .zero else { return 0 }
        let whole = tolerance.attoseconds / 1_000_000_000
        return whole >= Int128(UInt64.max) ? .max : UInt64(whole)
    }

    /// A deadline of a clock whose durations are not `Duration`: that clock's own sleep, in a
    /// task, then the job on the loop.
    private func enqueueLater<C: Clock>(_ job: UnownedJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        Task {
            try? await clock.sleep(until: instant, tolerance: tolerance)
            self.enqueue(job, at: 0, tolerance: 0)
        }
    }
}
