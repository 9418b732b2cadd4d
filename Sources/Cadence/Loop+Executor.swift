import Dispatch
import Glibc

/// A loop as the executor of tasks and actors (SE-0417 task executors, SE-0392 custom actor
/// executors): their jobs run on the loop's thread, between its passes, in the order they came.
///
/// A task runs on the loop with `Task(executorPreference: loop) { ... }` or
/// `await withTaskExecutorPreference(loop) { ... }` (its child tasks inherit the preference); an
/// actor runs on it when its `unownedExecutor` is `loop.asUnownedSerialExecutor()`. The loop runs
/// their jobs after each pass, outside its lock, and sleeps again (or, on a virtual loop, moves its
/// clock on) only once no job is waiting. A sleep on ``clock`` that fires resumes its task inside
/// the pass, so the task's next job runs before the clock moves: on a virtual loop, tasks on its
/// executor that sleep on its clock run exactly in fire-date order, the same on every run (see
/// <doc:ClocksAndAsyncCode> for what is deterministic and what is not).
///
/// Jobs run only while something runs the loop, as timers do: ``run(mode:for:)``,
/// ``runUntilIdle(mode:)``, ``startThread(mode:)``, or a host's passes (a job that comes while a
/// host drives the loop makes its descriptor readable). A job that comes from another thread wakes
/// a sleeping loop. Once the loop is closed, jobs still waiting and jobs that come later run on
/// one serial dispatch queue, off the loop's thread, so that no task waits for ever on a closed
/// loop (its sleeps then throw ``CadenceError/badHandle``).
extension Loop: TaskExecutor, SerialExecutor {
    /// Queues a job to run on the loop's thread after the current or next pass; called by the
    /// Swift runtime. Callable from any thread.
    ///
    /// - Parameter job: the job of a task that prefers this loop, or of an actor on it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.lock()
        if isClosedFlag {
            lock.unlock()
            runAfterClose(job)
            return
        }
        jobs.append(job)
        if isRunningFlag {
            wakeIfRemote()
        } else if hostModeIndex != nil {
            timeSource.wake()  // a host's descriptor turns readable; a host's uv_loop_t calls in
        }
        lock.unlock()
    }

    /// Whether the calling thread is running the loop (a job, a timer's callback, or anything
    /// else called from them): the actor isolation check of an actor on this loop, as in
    /// `assumeIsolated` from a timer's callback.
    public func isIsolatingCurrentContext() -> Bool? {
        lock.withLock { isRunningFlag && pthread_equal(runningThread, pthread_self()) != 0 }
    }

    /// Stops the program unless the calling thread is running the loop (see
    /// ``isIsolatingCurrentContext()``): for `preconditionIsolated` and `assumeIsolated` on an
    /// actor whose executor is this loop.
    public func checkIsolated() {
        precondition(isIsolatingCurrentContext() == true,
                     "expected to run on the thread running the Cadence loop (an actor isolated to it)")
    }

    /// Runs the jobs waiting now, oldest first, on the calling thread, which is running the loop;
    /// returns whether more came meanwhile (so that the loop does not sleep yet).
    func runJobs() -> Bool {
        guard !jobs.isEmpty else { return false }
        let serialExecutor = asUnownedSerialExecutor()
        let taskExecutor = asUnownedTaskExecutor()
        for job in jobs.takeAll() {
            job.runSynchronously(isolatedTo: serialExecutor, taskExecutor: taskExecutor)
        }
        return !jobs.isEmpty
    }

    /// Hands the jobs still waiting to the queue that runs a closed loop's jobs. Called once the
    /// loop is closed, when no new job can join them.
    func runJobsAfterClose() {
        for job in jobs.takeAll() { runAfterClose(job) }
    }

    private func runAfterClose(_ job: UnownedJob) {
        Loop.closedLoopJobs.async {
            job.runSynchronously(isolatedTo: self.asUnownedSerialExecutor(), taskExecutor: self.asUnownedTaskExecutor())
        }
    }

    /// One serial queue for the jobs of every closed loop: serial, so that an actor on a closed
    /// loop still runs one job at a time.
    private static let closedLoopJobs = DispatchQueue(label: "org.cadence.closed-loop-jobs")
}
