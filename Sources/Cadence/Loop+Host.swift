import CLibUV
import Glibc

/// A loop inside a loop that its program already runs: a poll, epoll, select, GLib or asyncio
/// loop through a descriptor and one pass at a time, or a libuv program through its `uv_loop_t`
/// (libuv's `uv_backend_fd`, `uv_backend_timeout` and `UV_RUN_NOWAIT`; sd-event's
/// `sd_event_get_fd`).
extension Loop {
    /// Creates a loop that lives on a libuv loop that the program runs itself: its timers fire
    /// from the program's `uv_run`, on the thread that runs it, in `mode`.
    ///
    /// The loop adds two handles to `uvLoop`, a `uv_poll_t` on a timerfd armed with the next
    /// wake-up (nanosecond deadlines) and a `uv_async_t`. They keep `uv_run(UV_RUN_DEFAULT)`
    /// going exactly while a referenced timer that can fire in `mode` is armed (one that
    /// ``runUntilIdle(mode:)`` would wait for; see ``ScheduledTimer/unref()``), as a referenced
    /// `uv_timer_t` does, and are unreferenced otherwise (libuv's `uv_ref` / `uv_unref`): the
    /// host's `uv_run` returns once its own work and the loop's referenced timers are done. A
    /// timer armed, cancelled or unreferenced on another thread changes that from the host's
    /// next turn (its `uv_run` is woken for it); one armed there after the host's `uv_run` has
    /// returned fires only when the host runs its loop again.
    ///
    /// ``close()`` (or the loop's deinitialization) closes the handles: from inside a callback of
    /// the host's `uv_run` nothing more is needed; after `uv_run` has returned, run it once more
    /// (`uv_run(loop, UV_RUN_NOWAIT)`) so that their close callbacks free them, and then
    /// `uv_loop_close` succeeds. Do not close these handles yourself (a `uv_walk` that closes
    /// every handle comes after closing the loop).
    ///
    /// Threads: create and close the loop on the thread that runs `uvLoop` (or before it runs),
    /// as libuv requires of every handle; arming, cancelling and the other calls work from any
    /// thread (the timerfd is re-armed directly, which wakes the host's epoll).
    /// ``run(mode:for:)-(_,Double)``, ``run(mode:)``, ``runUntilIdle(mode:)``, ``runPass(mode:)``,
    /// ``fileDescriptor()`` and ``startThread(mode:)`` throw ``CadenceError/notSupported``: the
    /// host's loop runs this one.
    ///
    /// - Parameters:
    ///   - uvLoop: an initialized `uv_loop_t *`, which must outlive this loop.
    ///   - mode: the mode the loop runs in; a custom mode is registered.
    /// - Throws: ``CadenceError/invalidArgument`` for `common` or a malformed mode;
    ///   ``CadenceError/ioError`` if no timerfd or handle could be made (a closing `uv_loop_t`).
    public convenience init(uvLoop: UnsafeMutableRawPointer, mode: RunLoopMode = .default) throws(CadenceError) {
        let backend: UVBackend
        do throws(CadenceError) {
            guard mode != .common else { throw .commonModeNotAllowed("never run itself") }
            guard mode.isWellFormed else { throw .malformedMode(mode) }
            backend = try UVBackend(host: uvLoop.assumingMemoryBound(to: uv_loop_t.self))
        } catch { throw error.in("Loop(uvLoop:mode:)") }
        self.init(timeSource: backend)
        if mode.builtinIndex == nil { try? addMode(mode) }  // well formed and not common: cannot fail
        let index = (try? modeIndex(of: mode)) ?? TimerQueues.defaultIndex
        lock.withLock { hostModeIndex = index }
        backend.onReady = { [weak self] in self?.runHostedPass() }
        // Timers armed from now on plan the host's wake-up themselves.
    }

    /// A descriptor that is readable exactly when the loop has work to do now: a wake-up due by
    /// the coalescing rule in the mode of the latest ``runPass(mode:)`` (the default mode until
    /// the first), or a call from another thread that came while the loop was running (a timer
    /// armed during a pass, which the next pass plans for). Watch it for reading with poll,
    /// epoll, select, GLib or asyncio, and call
    /// ``runPass(mode:)`` when it is readable; after the pass it is unreadable again unless more
    /// work is due. Arming or cancelling a timer from any thread re-arms it directly, so a cancelled
    /// timer leaves it unreadable at its fire date.
    ///
    /// The descriptor is libuv's epoll (`uv_backend_fd`) of the loop: do not read it or close it.
    /// It stays the same for the loop's life and is closed by ``close()``.
    ///
    /// - Throws: ``CadenceError/notSupported`` for a virtual loop (its clock moves only when told)
    ///   and a loop on a host's `uv_loop_t` (watch that loop instead);
    ///   ``CadenceError/badHandle`` after ``close()``.
    public func fileDescriptor() throws(CadenceError) -> Int32 {
        do { return try descriptorLocked() } catch { throw error.in("Loop.fileDescriptor()") }
    }

    private func descriptorLocked() throws(CadenceError) -> Int32 {
        try lock.withLock { () throws(CadenceError) -> Int32 in
            guard !isClosedFlag else { throw .loopClosed() }
            guard let descriptor = timeSource.descriptor else { throw .noDescriptor(virtual: isVirtual) }
            if hostModeIndex == nil {
                hostModeIndex = TimerQueues.defaultIndex
                if !isRunningFlag { planHostWakeLocked(force: true) }
            }
            return descriptor
        }
    }

    /// The time until the loop next needs a pass, in seconds of its clock (`uv_backend_timeout`):
    /// 0 if a wake-up is due now, nil if nothing is armed that could fire in the mode of the
    /// latest ``runPass(mode:)`` (the default mode until the first, the loop's mode on a host's
    /// `uv_loop_t`). For hosts that wait on a timeout: round up when converting to a coarser unit
    /// (poll's milliseconds), or the host wakes early and the pass finds nothing due.
    ///
    /// Seconds, as a `Double`, for hosts that convert it to their own unit (poll's milliseconds,
    /// a `timeval`); `Duration.seconds(_:)` makes a `Duration` of it.
    ///
    /// Coalescing is in the answer: it is the time to the wake-up that serves every timer due
    /// by then within its tolerance, not to the earliest fire date. A timer armed from another
    /// thread after the call may be due sooner; a host that needs that watches the descriptor.
    ///
    /// - Throws: ``CadenceError/badHandle`` after ``close()``.
    public func timeout() throws(CadenceError) -> Double? {
        try lock.withLock { () throws(CadenceError) -> Double? in
            guard !isClosedFlag else { throw CadenceError.loopClosed().in("Loop.timeout()") }
            let wake = queues.nextWake(runningIn: hostModeIndex ?? TimerQueues.defaultIndex) ?? .max
            guard wake != .max else { return nil }
            let now = timeSource.now()
            return wake <= now ? 0 : Double(wake - now) / 1e9
        }
    }

    /// One pass on the caller's thread, without waiting (`uv_run(UV_RUN_NOWAIT)`): fires every
    /// timer that is due in `mode` now, with every rule of ``run(mode:for:)-(_,Double)`` (fire-date order,
    /// never early, a timer armed during the pass waits for the next one), then arms the
    /// descriptor for the next wake-up in `mode`. On a virtual loop it fires what is due at the
    /// loop's clock and does not move it.
    ///
    /// A pass that fires timers at or after the wake-up it was armed for counts in ``wakeups``.
    ///
    /// - Throws: as ``run(mode:for:)-(_,Double)``: ``CadenceError/invalidArgument`` for `common`,
    ///   ``CadenceError/unknownMode``, ``CadenceError/busy`` if the loop is running (from one of its
    ///   callbacks, or a run or thread of its own), ``CadenceError/notSupported`` for a loop on a
    ///   host's `uv_loop_t`, ``CadenceError/badHandle`` after ``close()``.
    public func runPass(mode: RunLoopMode = .default) throws(CadenceError) {
        _ = try runPass(mode: mode, collecting: nil)
    }

    /// ``runPass(mode:)``, collecting: when the pass ends with a batch of one-shot fires
    /// (``setFireBatch(_:)``) whose every record's word has all the bits of the collector's mask
    /// and which fits in it, that batch is not handed over but copied to the collector's records,
    /// its timers fired (their calls count as made); returns how many (0: none). For a binding
    /// whose call for such one-shots only queues them: it then makes no call back into its
    /// language for a quiet loop's wake-up. A mask of 0, or no collector, collects nothing. A
    /// call that fails changes nothing: the collector travels with this pass only.
    ///
    /// - Throws: as ``runPass(mode:)``.
    package func runPass(mode: RunLoopMode, collecting collector: Collector?) throws(CadenceError) -> Int {
        let modeIndex: Int?
        do throws(CadenceError) {
            guard !isHosted else { throw .hostDrivesLoop("run a pass") }
            modeIndex = try beginRun(mode: mode, hostPass: true)
        } catch { throw error.in("Loop.runPass(mode:)") }
        guard let modeIndex else { return 0 }
        return pass(modeIndex: modeIndex, collectingInto: collector)
    }

    /// A pass from the host's `uv_run`, when the timerfd is readable or the loop was woken. Skipped
    /// while the loop runs (a callback that runs the host's loop) or after it is closed.
    private func runHostedPass() {
        guard let modeIndex = try? beginRun(mode: nil, hostPass: true) else { return }
        pass(modeIndex: modeIndex)
    }

    /// Takes in the wake-ups delivered, fires what is due, then arms the clock for the next
    /// wake-up and ends the run under one lock (see `endRun`).
    @discardableResult
    private func pass(modeIndex: Int, collectingInto collector: Collector? = nil) -> Int {
        timeSource.drainWakeups()
        let now = timeSource.now()
        // A lone pass has no batch, so nothing to collect.
        let (fired, collected) = fireLonePass(modeIndex: modeIndex, now: now).map { ($0, 0) }
            ?? firePass(modeIndex: modeIndex, now: now, collectingInto: collector)
        let jobsWaiting = runJobs().waiting
        lock.lock()
        if fired > 0 && hostModeIndex == modeIndex && now >= armedWake { wakeUpCount &+= 1 }
        hostModeIndex = modeIndex
        planHostWakeLocked(force: true)
        if jobsWaiting { timeSource.wake() }  // another pass at once, for the jobs that came meanwhile
        isRunningFlag = false
        runningHostPass = false
        if isHosted {
            hostThread = pthread_self()
            updateHostLivenessLocked()
        }
        runIdleJobsLaterLocked()  // a virtual clock has no descriptor to wake a host with
        lock.unlock()
        return collected
    }

    /// On a host's `uv_loop_t`: makes Cadence's handles keep the host's `uv_run` going exactly
    /// while a referenced timer that can fire in the loop's mode is armed (what a run until idle
    /// waits for), as a referenced `uv_timer_t` does. Only the host's thread may change a libuv
    /// handle: a change made on another thread wakes the host, whose pass takes it in. Call with
    /// the lock held.
    func updateHostLivenessLocked() {
        guard isHosted, !isClosedFlag, let hostModeIndex else { return }
        let alive = queues.hasReferencedTimers(runningIn: hostModeIndex)
        guard alive != keepsHostAlive else { return }
        guard pthread_equal(hostThread, pthread_self()) != 0 else { return timeSource.wake() }
        keepsHostAlive = alive
        timeSource.keepHostAlive(alive)
    }
}
