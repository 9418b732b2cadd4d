/// A loop that runs on a thread of its own.
extension Loop {
    /// Starts a thread that runs this loop in `mode` until ``stopThread()``, so that timers fire
    /// without the program running the loop itself (as a dispatch timer on its own queue).
    ///
    /// Timers, publishers and cancels may then be used from any thread; callbacks run on the
    /// loop's thread, so what they touch must be safe to share.
    ///
    /// - Throws: ``CadenceError/notSupported`` for a virtual loop (its clock moves only when told)
    ///   and for a loop on a host's `uv_loop_t` (see ``init(uvLoop:mode:)``);
    ///   ``CadenceError/busy`` if the loop is running or already has a thread;
    ///   ``CadenceError/invalidArgument`` or ``CadenceError/unknownMode`` for a bad mode (as
    ///   ``run(mode:for:)-(_,Double)``); ``CadenceError/outOfMemory`` if no thread could be started;
    ///   ``CadenceError/badHandle`` after ``close()``.
    public func startThread(mode: RunLoopMode = .default) throws(CadenceError) {
        let thread = LoopThread(loop: self, mode: mode)
        // A virtual clock on a thread would race through virtual time, an hour per run.
        do throws(CadenceError) {
            guard !isVirtual else {
                throw .notSupported.with("loop must be a real loop, got a virtual loop (its clock moves only when told)")
            }
            guard !isHosted else { throw .hostDrivesLoop("start a thread") }
            try lock.withLock { () throws(CadenceError) in
                guard !isClosedFlag else { throw .loopClosed() }
                guard !isRunningFlag else { throw .alreadyRunning("start a thread") }
                guard ownThread == nil else { throw .hasOwnThread("start another") }
                guard mode != .common else { throw .commonModeNotAllowed("never run itself") }
                _ = try queues.index(of: mode)
                ownThread = thread
                ownThreadStopping = false
            }
            guard thread.start() else {
                lock.withLock { ownThread = nil }
                throw .outOfMemory.with("the loop's thread could not be started (pthread_create failed)")
            }
        } catch {
            throw error.in("Loop.startThread(mode:)")
        }
    }

    /// Stops the loop's own thread after its current pass and waits for it to end, so that once
    /// it returns no callback of the loop is running. Callable from any thread but the loop's
    /// own, by several at once (each returns once the thread has ended); does nothing if the loop
    /// has no thread.
    ///
    /// - Throws: ``CadenceError/busy`` when called from the loop's thread (it cannot wait for itself).
    public func stopThread() throws(CadenceError) {
        let thread: LoopThread? = try lock.withLock { () throws(CadenceError) -> LoopThread? in
            guard let ownThread else { return nil }
            guard !ownThread.isCurrent else {
                throw CadenceError.busy.with("the calling thread must not be the loop's own thread (a callback), "
                                             + "which cannot wait for itself to end").in("Loop.stopThread()")
            }
            if ownThreadStopping {
                // Another caller is joining the thread (a thread is joined once): wait with it.
                while self.ownThread === ownThread { lock.wait() }
                return nil
            }
            ownThreadStopping = true
            if isRunningFlag {
                stopRequested = true
                timeSource.wake()
            }
            return ownThread
        }
        guard let thread else { return }
        thread.join()
        lock.withLock {
            ownThread = nil
            lock.signalAll()
        }
    }

    /// Whether a thread started by ``startThread(mode:)`` is running the loop.
    public var hasThread: Bool { lock.withLock { ownThread != nil } }
}
