// The custom main executor is SPI in the 6.3 toolchain (`@_spi(ExperimentalCustomExecutors)`), as
// `SchedulingExecutor` is: both may change with the toolchain, so they live in this module alone.
@_spi(ExperimentalCustomExecutors) import _Concurrency
import Cadence
import Synchronization

/// A loop as the program's main executor: the main actor's jobs run on the loop's thread, between
/// its passes, as jobs of actors on the loop do (see `Loop.runMain(_:)`).
///
/// The loop itself cannot be the main executor: its `enqueue` takes the jobs of tasks that prefer
/// it, and a main-actor job must run as a serial executor's. So this object forwards the main
/// actor's jobs to the loop's actor queue, and its identity is that queue's: the main actor and
/// the actors on the loop are one serial context, the loop's thread, and a call between them needs
/// no hop. A main-actor `Task.sleep` reaches the loop as the default executor (a
/// `SchedulingExecutor`, which the runtime asks for when the current executor is not one).
final class MainLoopExecutor: MainExecutor, Sendable {
    /// The loop that runs the main actor's jobs.
    let loop: Loop

    init(_ loop: Loop) { self.loop = loop }

    /// Queues a job of the main actor on the loop; called by the Swift runtime, from any thread.
    ///
    /// - Parameter job: the job of a main-actor task or function.
    func enqueue(_ job: consuming ExecutorJob) {
        loop.queue(UnownedJob(job), onActor: true)
    }

    /// The loop's serial executor: the main actor's identity while this is the main executor.
    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    /// Whether the calling thread is running the loop (the main thread, in `Loop.runMain(_:)`).
    func isIsolatingCurrentContext() -> Bool? {
        loop.isIsolatingCurrentContext()
    }

    /// Stops the program unless the calling thread is running the loop.
    func checkIsolated() {
        precondition(loop.isIsolatingCurrentContext(),
                     "expected to run on the main actor, which is the thread running the Cadence loop")
    }

    /// Always true: this is the program's main executor.
    var isMainExecutor: Bool { true }

    /// Runs the loop in its default mode until ``stop()``.
    ///
    /// - Throws: `CadenceError`, as `Loop.run(mode:)`.
    func run() throws {
        try loop.run()
    }

    /// Makes ``run()`` return after the loop's current pass.
    func stop() {
        loop.stop()
    }

    /// The executors that `_createExecutors(factory:)` installs: this one as the main executor,
    /// its loop as the default (global) executor. Read once, during that call.
    enum Factory: ExecutorFactory {
        /// The executor being installed: set once, before `_createExecutors(factory:)`.
        static let installing = Mutex<MainLoopExecutor?>(nil)

        static var mainExecutor: any MainExecutor { installing.withLock { $0! } }

        static var defaultExecutor: any TaskExecutor { installing.withLock { $0!.loop } }
    }
}
