import Dispatch
import Glibc

/// A loop as the executor of tasks and actors (SE-0417 task executors, SE-0392 custom actor
/// executors through ``Loop/asUnownedSerialExecutor()``): their jobs run on the loop's thread, between its passes, in the order they came.
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
/// On a real loop, jobs run only while something runs the loop, as timers do:
/// ``run(mode:for:)-(_,Double)``, ``runUntilIdle(mode:)``, ``startThread(mode:)``, or a host's
/// passes (a job that comes while a host drives the loop makes its descriptor readable). A job that
/// comes from another thread wakes a sleeping loop. A virtual loop, whose clock moves only when
/// told, runs a job that comes while nothing runs it at once, on a thread of the pool, so that a
/// task or actor of the loop awaited from outside completes (see ``settle()``). Once the loop is closed, jobs still waiting and jobs that come later run on
/// one serial dispatch queue, off the loop's thread, so that no task waits for ever on a closed
/// loop (its sleeps then throw ``CadenceError/badHandle``).
extension Loop: TaskExecutor {
    /// Queues a job of a task that prefers this loop, to run on the loop's thread after the
    /// current or next pass; called by the Swift runtime. Callable from any thread.
    ///
    /// - Parameter job: the job of a task whose executor preference is this loop.
    public func enqueue(_ job: consuming ExecutorJob) {
        queue(UnownedJob(job), onActor: false)
    }

    /// The executor for an actor that runs on this loop: return it from the actor's
    /// `unownedExecutor`. The actor's jobs run on the loop's thread, as tasks on the loop do; the
    /// executor does not keep the loop alive, so the actor must (a stored `Loop`).
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: jobs)
    }

    /// Whether the calling thread is running the loop: in a job of a task or actor on the loop, a
    /// timer's callback, or anything they call. It is the isolation check of an actor on this
    /// loop, so a timer's callback may call `assumeIsolated` on such an actor.
    public func isIsolatingCurrentContext() -> Bool {
        lock.withLock { isRunningFlag && pthread_equal(runningThread, pthread_self()) != 0 }
    }

    /// Queues `job` to run on the loop's thread: as an actor's job on the loop's serial executor
    /// (`onActor`), which is also the main actor's when the loop is the program's main executor
    /// (`Loop.runMain` in `CadenceTasks`), or as a job of a task that prefers the loop.
    package func queue(_ job: UnownedJob, onActor: Bool) {
        lock.lock()
        if isClosedFlag {
            lock.unlock()
            runAfterClose(job, onActor: onActor)
            return
        }
        // A task resumed before its sleep's deadline: its sleep's job runs now, its timer goes.
        let sleep = takeSleeperLocked(resumedBy: job)
        noteResumedLocked(job)
        jobs.append(job, onActor: onActor)
        if isRunningFlag {
            wakeIfRemote()
        } else if hasVirtualClock {
            runIdleJobsLaterLocked()  // no run may come to a virtual loop: Loop+Settle.swift
        } else if hostModeIndex != nil {
            timeSource.wake()  // a host's descriptor turns readable; a host's uv_loop_t calls in
        }
        lock.unlock()
        if let sleep {  // after the lock, which the disarm takes
            disarm(sleep.timer)
            Loop.runDelayed(sleep.job)
        }
    }

    /// Runs the jobs waiting now, oldest first, on the calling thread, which is running the loop;
    /// returns whether it ran any, and whether more came meanwhile (so that the loop does not
    /// sleep yet).
    @inline(__always)  // after every pass, which mostly finds none
    func runJobs() -> (ran: Bool, waiting: Bool) {
        jobs.isEmpty ? (false, false) : runWaitingJobs()
    }

    @inline(never)
    private func runWaitingJobs() -> (ran: Bool, waiting: Bool) {
        for (job, onActor) in jobs.takeAll() { run(job, onActor: onActor) }
        return (true, !jobs.isEmpty)
    }

    /// Hands the jobs still waiting to the queue that runs a closed loop's jobs. Called once the
    /// loop is closed, when no new job can join them.
    func runJobsAfterClose() {
        for (job, onActor) in jobs.takeAll() { runAfterClose(job, onActor: onActor) }
    }

    private func runAfterClose(_ job: UnownedJob, onActor: Bool) {
        Loop.closedLoopJobs.async { self.run(job, onActor: onActor) }
    }

    private func run(_ job: UnownedJob, onActor: Bool) {
        if hasVirtualClock { noteJobStart() }
        if onActor {
            job.runSynchronously(on: asUnownedSerialExecutor())
        } else {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        if hasVirtualClock { noteJobEnd() }
    }

    /// One serial queue for the jobs of every closed loop: serial, so that an actor on a closed
    /// loop still runs one job at a time.
    private static let closedLoopJobs = DispatchQueue(label: "org.cadence.closed-loop-jobs")
}
