import Dispatch
import Synchronization

/// Jobs that the Swift runtime hands the loop with a deadline: the job that ends a `Task.sleep`
/// of a task on the loop's executor, through `SchedulingExecutor` (SE-0505) in the `CadenceTasks`
/// module. Each is a one-shot timer in ``RunLoopMode/common`` with the sleep's tolerance, so it
/// coalesces with the loop's other timers and never runs before its deadline.
///
/// A cancelled `Task.sleep` frees its timer at once. The runtime does not tell the executor of
/// the cancel: it resumes the sleeping task at once, which hands the task's next job to the loop,
/// and leaves the sleep's own job to run at the deadline (where it finds the sleep over). So the
/// loop remembers which task each such job was queued from (the runtime calls the executor from
/// inside the sleeping task), and when a job of that task comes before the deadline, the task was
/// resumed early: the loop disarms the timer and runs the sleep's job now, which frees it.
extension Loop {
    /// Runs `job` on the loop's thread at `deadline` of the loop's clock, or up to `tolerance`
    /// later, as a one-shot timer; if the calling task is resumed first, the timer is disarmed
    /// and the job runs at once (see above). Callable from any thread.
    ///
    /// On a closed loop, or one closed before the deadline, the job runs at the deadline on a
    /// dispatch queue (at once on a virtual loop, whose clock no longer moves).
    ///
    /// - Parameters:
    ///   - job: a job to run no earlier than `deadline`.
    ///   - deadline: nanoseconds of the loop's clock.
    ///   - tolerance: nanoseconds of allowed lateness.
    package func enqueue(_ job: UnownedJob, at deadline: UInt64, tolerance: UInt64) {
        let sleeper = withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UInt.self) } }
        let delayed = DelayedJob(job, loop: self, deadline: deadline, sleeper: sleeper)
        lock.lock()
        do {
            let timer = try armLocked(delay: 0, at: deadline, interval: 0, tolerance: tolerance,
                                      missedTicks: .skip, modeIndex: TimerQueues.commonIndex,
                                      action: .closure { _ in delayed.fire() })
            if let sleeper { sleepers[sleeper] = (delayed, timer) }
        } catch {
            // Closed: `delayed` ends without having run, and hands its job on as it goes.
        }
        lock.unlock()
    }

    /// The delayed job waiting for `job`'s task, taken from the table: `job` resumes a task
    /// before its sleep's deadline. Call with the lock held, then disarm the returned timer
    /// after the lock and queue the returned job.
    func takeSleeperLocked(resumedBy job: UnownedJob) -> (job: UnownedJob, timer: TimerID)? {
        guard !sleepers.isEmpty,
              let (delayed, timer) = sleepers.removeValue(forKey: unsafeBitCast(job, to: UInt.self)) else { return nil }
        releaseEmptyTablesLocked()
        guard let sleepJob = delayed.take() else { return nil }
        return (sleepJob, timer)
    }

    /// How many entries the tables of sleepers and resuming tasks may have room for while empty.
    /// A dictionary keeps the capacity it grew to: about 64 bytes a sleep for the sleepers.
    static let sleeperTablesKeptEmpty = 1024

    /// Lets go of the memory of the tables of sleepers and resuming tasks once they are empty
    /// after many sleeps, as the timer table does (``FreedMemory``). O(1) unless it frees; a
    /// table freed at n entries has had n removals since it grew there: O(1) per sleep, amortized.
    /// Call with the lock held.
    func releaseEmptyTablesLocked() {
        if sleepers.isEmpty && sleepers.capacity > Self.sleeperTablesKeptEmpty { sleepers = [:] }
        if resuming.isEmpty && resuming.capacity > Self.sleeperTablesKeptEmpty { resuming = [] }
    }

    /// Notes, on a virtual loop, that the sleep of `sleeper` ended and its task is about to be
    /// resumed: the runtime's job that ends a sleep hops to the global executor before it resumes
    /// the task, so the task's next job reaches the loop from another thread a moment later, and
    /// the run waits for it before it moves the clock (``waitForResumesLocked()``).
    fileprivate func willResume(_ sleeper: UInt?) {
        guard isVirtual, let sleeper else { return }
        lock.withLock { _ = resuming.insert(sleeper) }
    }

    /// `job` came: if it resumes a task whose sleep ended, the run need not wait for it any more.
    /// Call with the lock held.
    func noteResumedLocked(_ job: UnownedJob) {
        guard !resuming.isEmpty, resuming.remove(unsafeBitCast(job, to: UInt.self)) != nil else { return }
        releaseEmptyTablesLocked()
        lock.signalAll()
    }

    /// Waits, with the lock held, until every task whose sleep ended in this run has been handed
    /// back to the loop, so that it runs before the clock moves: on the same virtual time on every
    /// run. A task that is not resumed on the loop (a sleep whose task runs elsewhere) stops the
    /// wait after a second of real time.
    func waitForResumesLocked() {
        while !resuming.isEmpty {
            let before = resuming.count
            lock.wait(seconds: 1)
            if resuming.count == before { return resuming.removeAll() }  // timed out: give up on them
        }
    }

    /// Runs a delayed job where the runtime's own delayed jobs run: on the global concurrent
    /// executor. The job that ends a `Task.sleep` belongs to a task of its own with no executor
    /// preference, which would hop there anyway; run on the loop's thread, inside a pass, it made
    /// a later sleep on another loop lose its wake-up (seen on 6.3.1).
    static func runDelayed(_ job: UnownedJob) {
        globalConcurrentExecutor.enqueue(job)
    }

    /// Removes the table's entry for `delayed` if it is still there.
    fileprivate func forget(_ delayed: DelayedJob) {
        // (A delayed job ends unrun only once out of the table, which holds it: see `close()`.)
        guard let sleeper = delayed.sleeper else { return }
        lock.withLock {
            if sleepers[sleeper]?.job === delayed {
                sleepers[sleeper] = nil
                releaseEmptyTablesLocked()
            }
        }
    }

    /// Runs a delayed job that its timer's close left unrun: at its deadline on a dispatch queue.
    fileprivate func runAfterClose(_ job: UnownedJob, deadline: Nanoseconds) {
        let now = timeSource.now()
        let wait = isVirtual || deadline <= now ? 0 : min(deadline - now, UInt64(Int.max))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { Loop.runDelayed(job) }
    }
}

/// One job queued with a deadline: run exactly once, by whichever comes first of its timer's
/// fire, its task's early resumption, or the release of its timer unrun (a close).
final class DelayedJob: Sendable {
    private let job: Mutex<UnownedJob?>
    private let loop: Loop
    private let deadline: Nanoseconds
    /// The task the job was queued from (its address), if any.
    let sleeper: UInt?

    init(_ job: UnownedJob, loop: Loop, deadline: Nanoseconds, sleeper: UInt?) {
        self.job = Mutex(job)
        self.loop = loop
        self.deadline = deadline
        self.sleeper = sleeper
    }

    /// The job, the first time only.
    func take() -> UnownedJob? { job.withLock { job in defer { job = nil }; return job } }

    /// The timer fired: runs the job here, on the loop's thread, inside the pass.
    func fire() {
        guard let job = take() else { return }
        loop.forget(self)
        loop.willResume(sleeper)
        Loop.runDelayed(job)
    }

    deinit {
        // Released unrun: the loop closed (which empties the table of sleepers too), or was closed.
        if let job = take() { loop.runAfterClose(job, deadline: deadline) }
    }
}
