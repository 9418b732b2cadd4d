// `_createExecutors(factory:)` is SPI in the 6.3 toolchain (`@_spi(ExperimentalCustomExecutors)`).
@_spi(ExperimentalCustomExecutors) import _Concurrency
import Cadence
import Synchronization

extension Loop {
    /// Makes a new Cadence loop the program's main executor and its default (global) executor,
    /// runs `body` on the main actor on it, and returns what `body` returns once it does.
    ///
    /// Call it first thing in a synchronous `main` (top-level code with no `await`, or a `@main`
    /// type's `static func main()`); the calling thread becomes the main actor's and runs the loop:
    ///
    /// ```swift
    /// import Cadence
    /// import CadenceTasks
    ///
    /// try Loop.runMain { loop in
    ///     try await Task.sleep(for: .seconds(1), tolerance: .milliseconds(100))  // a Cadence timer
    /// }
    /// ```
    ///
    /// Everything then runs on that one thread, between the loop's passes: the main actor, a
    /// `Task {}` (which inherits the main actor where it is made on it), `Task.detached`, and
    /// nonisolated and `@concurrent` async functions (the default executor is the loop); actors of
    /// their own run there too unless they have an executor of their own. Every `Task.sleep` and
    /// `ContinuousClock`/`SuspendingClock` sleep of those is a one-shot timer on the loop in
    /// ``RunLoopMode/common``: never early, coalesced with the loop's timers by tolerance, freed
    /// before `Task.cancel()` returns. A task that blocks its thread blocks the whole program, as
    /// in any single-threaded event loop: run blocking work on a thread or queue of its own.
    /// Dispatch's queues run on Dispatch's threads as before, except `DispatchQueue.main`, whose
    /// blocks never run: the main thread runs the loop, and nothing drains Dispatch's main queue.
    ///
    /// The loop runs in its default mode until `body` returns; ``Loop/stop()`` from `body` ends a
    /// pass, not the run. Tasks still running then stay where they are, unfinished, until the
    /// program exits (as after an async `main` returns); the loop is not closed, so its timers and
    /// tasks resume if it is run again (for instance `loop.run(for:)` after this returns).
    ///
    /// This rests on SPI of the 6.3 toolchain (`ExecutorFactory`, `MainExecutor`,
    /// `_createExecutors(factory:)`, `@_spi(ExperimentalCustomExecutors)`), which may change with
    /// the toolchain. Swift 6.3.1 ignores a `DefaultExecutorFactory` type alias on Linux, so this
    /// installs the executors by calling `_createExecutors(factory:)` itself: before this call
    /// nothing must have run on the main actor, and tasks started before it stay on Dispatch.
    ///
    /// - Parameter body: the program's main, run on the main actor; it gets the loop, to read its
    ///   counts, add modes or schedule timers on it.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; `CadenceError.busy` if the program's executors were made
    ///   Cadence's already (this runs once per process: the main executor is set once);
    ///   `CadenceError.ioError` if libuv cannot create the loop.
    @available(*, noasync, message: "Loop.runMain makes the calling thread the main actor's: call it from a synchronous main")
    public static func runMain<T: Sendable>(_ body: @escaping @MainActor (Loop) async throws -> T) throws -> T {
        let executor: MainLoopExecutor
        do throws(CadenceError) {
            executor = MainLoopExecutor(try Loop())
            try MainLoopExecutor.Factory.installing.withLock { installing throws(CadenceError) in
                guard installing == nil else {
                    throw .busy.with("runMain must be called once per process (the main executor is set once), "
                                     + "got a second call")
                }
                installing = executor
            }
        } catch { throw error.in("Loop.runMain(_:)") }
        _createExecutors(factory: MainLoopExecutor.Factory.self)
        let loop = executor.loop
        let outcome = Outcome<T>()
        Task { @MainActor in
            do { outcome.set(.success(try await body(loop))) } catch { outcome.set(.failure(error)) }
            loop.stop()
        }
        // A stop() from the program ends one run, not the program's main.
        while outcome.result == nil {
            do { try loop.run() } catch { throw error.in("Loop.runMain(_:)") }
        }
        return try outcome.result!.get()
    }
}

/// What the main body returned or threw, set on the loop's thread and read after the run.
private final class Outcome<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, any Error>?>(nil)

    var result: Result<T, any Error>? { value.withLock { $0 } }

    func set(_ result: Result<T, any Error>) { value.withLock { $0 = result } }
}
