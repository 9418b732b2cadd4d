import Synchronization

/// The jobs waiting to run on a loop (Loop+Executor.swift), in the order they came, and the serial
/// executor of actors on the loop.
///
/// Two executors share the queue: the loop itself is the task executor (the jobs of tasks that
/// prefer it), this object the serial executor (the jobs of actors on it). Each job is run as
/// what it was queued for: a task's job run as isolated to a serial executor would first hop off
/// it, one more job for every resumption.
///
/// Its own lock rather than the loop's, and a count read without a lock, so that a pass with no
/// job waiting costs one atomic load.
final class JobQueue: SerialExecutor, @unchecked Sendable {  // `loop` is set once, in the loop's init
    private let jobs = Mutex<[(job: UnownedJob, onActor: Bool)]>([])
    private let count = Atomic<Int>(0)
    /// The loop that owns this queue, and so outlives it.
    unowned(unsafe) var loop: Loop?

    /// Whether no job is waiting (a snapshot: one may be added right after).
    var isEmpty: Bool { count.load(ordering: .acquiring) == 0 }

    /// Adds a job after the others.
    ///
    /// - Parameters:
    ///   - job: the job to run later.
    ///   - onActor: whether it is an actor's job (run on this serial executor) or a task's (run on
    ///     the loop as its task executor).
    func append(_ job: UnownedJob, onActor: Bool) {
        jobs.withLock { jobs in
            jobs.append((job, onActor))
            count.store(jobs.count, ordering: .releasing)
        }
    }

    /// Takes every waiting job, oldest first.
    func takeAll() -> [(job: UnownedJob, onActor: Bool)] {
        jobs.withLock { jobs in
            let taken = jobs
            jobs.removeAll(keepingCapacity: true)
            count.store(0, ordering: .releasing)
            return taken
        }
    }

    /// Queues an actor's job on the loop; called by the Swift runtime.
    ///
    /// - Parameter job: the job of an actor whose executor is the loop's.
    func enqueue(_ job: consuming ExecutorJob) {
        loop?.queue(UnownedJob(job), onActor: true)
    }

    /// Whether the calling thread is running the loop (see ``Loop/isIsolatingCurrentContext()``).
    func isIsolatingCurrentContext() -> Bool? {
        loop?.isIsolatingCurrentContext()
    }

    /// Stops the program unless the calling thread is running the loop.
    func checkIsolated() {
        precondition(loop?.isIsolatingCurrentContext() == true,
                     "expected to run on the thread running the Cadence loop (an actor isolated to it)")
    }
}
