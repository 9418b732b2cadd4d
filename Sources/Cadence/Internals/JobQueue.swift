import Synchronization

/// The jobs waiting to run on a loop's executor (Loop+Executor.swift), in the order they came.
///
/// Its own lock rather than the loop's, and a count read without a lock, so that a pass with no
/// job waiting costs one atomic load.
final class JobQueue: Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    private let count = Atomic<Int>(0)

    /// Whether no job is waiting (a snapshot: one may be added right after).
    var isEmpty: Bool { count.load(ordering: .acquiring) == 0 }

    /// Adds a job after the others.
    ///
    /// - Parameter job: the job to run later.
    func append(_ job: UnownedJob) {
        jobs.withLock { jobs in
            jobs.append(job)
            count.store(jobs.count, ordering: .releasing)
        }
    }

    /// Takes every waiting job, oldest first.
    func takeAll() -> [UnownedJob] {
        jobs.withLock { jobs in
            let taken = jobs
            jobs.removeAll(keepingCapacity: true)
            count.store(0, ordering: .releasing)
            return taken
        }
    }
}
