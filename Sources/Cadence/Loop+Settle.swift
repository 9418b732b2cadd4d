import Dispatch
import Glibc

/// The jobs that come to a virtual loop while nothing runs it.
///
/// A real loop's clock moves by itself, so a job waits for the loop's next run or pass, as a timer
/// does. A virtual loop's clock does not: a job left waiting on an idle virtual loop (a task whose
/// sleep was just cancelled from outside, an actor's call from a test) would wait for a run that a
/// test may never make, and whatever awaits it would hang without a word. So an idle virtual loop
/// runs such jobs at once, on a thread of its own (as swift-nio's `NIOAsyncTestingEventLoop` runs
/// what `execute` hands it from outside), at the clock's current reading and firing no timer.
/// Every call that moves the clock or runs the loop first lets these jobs finish, so what a test
/// sees after it is the same on every run.
extension Loop {
    /// Runs the jobs waiting on this virtual loop until none is left, without firing a timer or
    /// moving the clock, and returns once they have run: the way for a test to see what the tasks
    /// and actors on the loop did in response to something that came from outside a run (a
    /// cancel, an actor's call), as swift-nio's `NIOAsyncTestingEventLoop.run()`.
    ///
    /// Such jobs run anyway, at once, on another thread, so awaiting a task of the loop completes
    /// without it (see <doc:ClocksAndAsyncCode>); ``settle()`` is for effects that are not awaited.
    /// A job that a task on another executor hands to the loop after `settle()` returns runs
    /// later. Jobs that keep queueing more (a loop of `Task.yield()`) keep it running, as they
    /// keep a run on the same virtual time.
    ///
    /// Callable from any thread other than the loop's own.
    ///
    /// - Throws: ``CadenceError/notSupported`` on a real loop (its jobs run when it runs);
    ///   ``CadenceError/busy`` from a job or callback of the loop (it would wait for itself) or
    ///   while a run of the loop on another thread is in progress (that run runs the jobs);
    ///   ``CadenceError/badHandle`` after ``close()``.
    public func settle() async throws(CadenceError) {
        do throws(CadenceError) {
            guard isVirtual else {
                throw .notSupported.with("loop must be a virtual loop, got a real loop (its jobs run when it runs)")
            }
            try lock.withLock { () throws(CadenceError) in
                guard !isClosedFlag else { throw .loopClosed() }
                guard !isRunningFlag || settlingJobs && !isOnRunningThreadLocked else {
                    throw .busy.with(isOnRunningThreadLocked
                        ? "settle() must be called from outside the loop, got a call from one of its jobs or callbacks (it would wait for itself)"
                        : "loop must not be running to settle, got a run in progress on another thread (that run runs its jobs)")
                }
            }
            runIdleJobs()
        } catch { throw error.in("Loop.settle()") }
    }

    /// Whether the calling thread is the one running the loop. Call with the lock held.
    var isOnRunningThreadLocked: Bool { isRunningFlag && pthread_equal(runningThread, pthread_self()) != 0 }

    /// Waits, with the lock held, until no other thread is running an idle virtual loop's jobs
    /// (``runIdleJobs()``), which ends as soon as they have run.
    func waitForIdleJobsLocked() {
        while settlingJobs && pthread_equal(runningThread, pthread_self()) == 0 { lock.wait() }
    }

    /// Has the loop's own queue (``idleJobsQueue``) run the jobs waiting on an idle virtual loop.
    /// Call with the lock held: from ``queue(_:onActor:)`` when nothing runs the loop, and
    /// wherever a run ends (a job may have come after its last look).
    func runIdleJobsLaterLocked() {
        guard let idleJobsQueue, !isRunningFlag, !isClosedFlag, !idleJobsQueued, !jobs.isEmpty else { return }
        idleJobsQueued = true
        idleJobsQueue.async {
            self.lock.withLock { self.idleJobsQueued = false }
            self.runIdleJobs()
        }
    }

    /// Runs the jobs waiting on an idle virtual loop on the calling thread until none is left,
    /// after those that another thread is running; does nothing on a real loop, a running or
    /// closed loop (a run runs its jobs, a close hands them on), or with no job waiting.
    func runIdleJobs() {
        guard isVirtual else { return }
        lock.lock()
        waitForIdleJobsLocked()
        guard !isRunningFlag, !isClosedFlag, !jobs.isEmpty else { return lock.unlock() }
        // Marked running, so that the jobs are on the loop (`isIsolatingCurrentContext`), a run
        // or close from one of them is refused as from a callback, and a job that comes meanwhile
        // joins these.
        isRunningFlag = true
        settlingJobs = true
        runningThread = pthread_self()
        lock.unlock()
        while runJobs().waiting {}
        lock.lock()
        settlingJobs = false
        isRunningFlag = false
        planHostWakeLocked(force: true)  // a job may have armed a timer for a host's passes
        lock.signalAll()
        runIdleJobsLaterLocked()
        lock.unlock()
    }
}
