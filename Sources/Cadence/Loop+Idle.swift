/// Running until nothing is left to do: libuv's `UV_RUN_DEFAULT` with `uv_ref` / `uv_unref`,
/// Node's exit rule with `ref()` / `unref()`.
extension Loop {
    /// Runs the loop in `mode` until no referenced timer that can fire in `mode` is armed, then
    /// returns (early if ``stop()`` is called). The run is ``run(mode:for:)-(_,Double)``'s, without an end.
    ///
    /// Which timers keep it going: every armed timer is referenced unless unreferenced with
    /// ``ScheduledTimer/unref()`` (only scheduled timers, one-shot and repeating, can be): a
    /// one-shot until it fires or is cancelled, a repeating scheduled timer, a connected
    /// publisher and an active poller until they are cancelled, a countdown until it finishes. Of
    /// these, only the timers in `mode`, and in ``RunLoopMode/common`` when `mode` is a common
    /// mode, count: a timer of another mode can never fire in this run. Whether `mode` is common is
    /// read at each pass, so a mode made common during the run counts the common timers from then
    /// on. Unreferenced timers fire as usual while the run lasts.
    ///
    /// The check comes after each pass: a run with nothing referenced fires what is due at once
    /// and returns; a run whose last referenced one-shot fires returns right after that pass, the
    /// clock at its fire date. A cancel or ``ScheduledTimer/unref()`` from another thread that
    /// leaves nothing referenced wakes the loop, which then returns.
    ///
    /// On a virtual loop the clock steps from wake-up to wake-up as in ``run(mode:for:)-(_,Double)``, until
    /// idle. Nothing bounds it (as libuv): a referenced repeating timer keeps it going until a
    /// callback calls ``stop()``, cancels it or unreferences it; use ``run(mode:for:)-(_,Double)`` for a
    /// bounded run. A virtual run whose remaining timers can never fire (a fire date past the end
    /// of the clock) returns.
    ///
    /// (`cadence_loop_run_until_idle` in C, `Loop.run_until_idle` in Python.)
    ///
    /// - Parameter mode: a registered mode other than ``RunLoopMode/common``.
    /// - Throws: ``CadenceError/invalidArgument`` for `common` or a malformed mode;
    ///   ``CadenceError/unknownMode`` for an unregistered mode; ``CadenceError/busy`` if the loop
    ///   is already running (for example when called from one of its own callbacks) or has a
    ///   thread of its own; ``CadenceError/notSupported`` for a loop on a host's `uv_loop_t` (see
    ///   ``init(uvLoop:mode:)``); ``CadenceError/badHandle`` after ``close()``.
    public func runUntilIdle(mode: RunLoopMode = .default) throws(CadenceError) {
        do { _ = try run(mode: mode, for: nil, onOwnThread: false) } catch { throw error.in("Loop.runUntilIdle(mode:)") }
    }

    /// Marks an armed timer as keeping a run until idle going or not; false if it is not armed.
    func setReferenced(_ id: TimerID, _ referenced: Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let armed = queues.setReferenced(id, referenced)
        if !referenced { wakeIdleRunIfDoneLocked() }
        if isHosted { updateHostLivenessLocked() }
        return armed
    }

    /// Whether a timer is armed and referenced.
    func isReferenced(_ id: TimerID) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return !firedInBatchLocked(id) && queues.isReferenced(id)
    }

    /// Whether a run until idle in `mode` would go on: a referenced timer that can fire in `mode`
    /// is armed (libuv's `uv_loop_alive`), counted as ``runUntilIdle(mode:)`` counts.
    ///
    /// For a host that runs the loop until idle through its descriptor and ``runPass(mode:)``, as
    /// ``runUntilIdle(mode:)`` does on its own thread: after each pass it asks, and returns when
    /// the answer is `false`. While the latest answer is `true`, a cancel or an
    /// ``ScheduledTimer/unref()``, from any thread, that leaves nothing referenced in `mode` makes
    /// ``fileDescriptor()`` readable, so that the host's wait ends and its next pass and question
    /// find the loop idle (a run until idle woken in the same way). Python's `Loop.run_until_idle`
    /// runs like this on the main thread, so that Ctrl-C ends it at once.
    /// (`cadence_loop_alive` in C, `Loop.alive` in Python.)
    ///
    /// - Parameter mode: a registered mode other than ``RunLoopMode/common``.
    /// - Returns: whether a referenced timer that can fire in `mode` is armed.
    /// - Throws: ``CadenceError/invalidArgument`` for `common` or a malformed mode;
    ///   ``CadenceError/unknownMode`` for an unregistered mode; ``CadenceError/badHandle`` after
    ///   ``close()``.
    public func isAlive(mode: RunLoopMode = .default) throws(CadenceError) -> Bool {
        do throws(CadenceError) {
            lock.lock()
            defer { lock.unlock() }
            guard mode != .common else { throw .commonModeNotAllowed("never run itself") }
            let index = try modeIndexLocked(of: mode)
            settleBatchLocked()
            let alive = queues.hasReferencedTimers(runningIn: index)
            hostIdleModeIndex = alive ? index : nil
            return alive
        } catch {
            throw error.in("Loop.isAlive(mode:)")
        }
    }

    /// Wakes a run until idle that a cancel or an unref from another thread has left with nothing
    /// referenced (it would otherwise sleep until the cancelled timer's fire date), and a host
    /// running until idle (``isAlive(mode:)``). Call with the lock held.
    func wakeIdleRunIfDoneLocked() {
        if runningUntilIdle && !queues.hasReferencedTimers(runningIn: runningModeIndex) { wakeIfRemote() }
        if let mode = hostIdleModeIndex, !isRunningFlag, !queues.hasReferencedTimers(runningIn: mode) {
            hostIdleModeIndex = nil
            timeSource.wake()
        }
    }

    /// ``ScheduledTimer/unref()`` and ``ScheduledTimer/ref()`` for the C API's timers, by packed
    /// id; false if the timer is not armed.
    package func setReferenced(packedID: UInt64, _ referenced: Bool) -> Bool {
        setReferenced(TimerID(packed: packedID), referenced)
    }

    /// ``ScheduledTimer/hasRef`` for the C API's timers, by packed id.
    package func isReferenced(packedID: UInt64) -> Bool {
        isReferenced(TimerID(packed: packedID))
    }
}
