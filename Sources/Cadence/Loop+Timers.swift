import Glibc

/// Arming and cancelling timers: what `schedule`, publishers and the C layer build on. Every call
/// takes the loop's lock; none runs a callback.
extension Loop {
    /// Arms a timer whose first fire date is `delay` after a fresh clock read, or `fireDate`, in
    /// the mode with index `modeIndex`.
    func arm(delay: Nanoseconds, at fireDate: Nanoseconds? = nil, interval: Nanoseconds,
             tolerance: Nanoseconds, missedTicks: MissedTickPolicy = .skip, modeIndex: Int,
             action: consuming TimerAction) throws(CadenceError) -> TimerID {
        // Not `withLock` here and below: what a hot path passes through its generic closure can
        // cost an allocation or a copy of `queues`.
        lock.lock()
        defer { lock.unlock() }
        return try armLocked(delay: delay, at: fireDate, interval: interval, tolerance: tolerance,
                             missedTicks: missedTicks, modeIndex: modeIndex, action: action)
    }

    /// ``arm(delay:at:interval:tolerance:missedTicks:modeIndex:action:)`` in `mode`, looked up
    /// under the same lock. (Inlined: on the one-shot start's path, where the compiler stopped
    /// inlining it on its own once arming counted referenced timers, about 50 instructions per
    /// start.)
    @inline(__always)
    func arm(delay: Nanoseconds, interval: Nanoseconds, tolerance: Nanoseconds,
             missedTicks: MissedTickPolicy = .skip, mode: RunLoopMode,
             action: consuming TimerAction) throws(CadenceError) -> TimerID {
        lock.lock()
        defer { lock.unlock() }
        let modeIndex: Int
        do {
            modeIndex = try modeIndexLocked(of: mode)
        } catch {
            action.discard()
            throw error
        }
        return try armLocked(delay: delay, at: nil, interval: interval, tolerance: tolerance,
                             missedTicks: missedTicks, modeIndex: modeIndex, action: action)
    }

    func armLocked(delay: Nanoseconds, at fireDate: Nanoseconds?, interval: Nanoseconds,
                   tolerance: Nanoseconds, missedTicks: MissedTickPolicy, modeIndex: Int,
                   action: consuming TimerAction, held: Bool = false) throws(CadenceError) -> TimerID {
        guard !isClosedFlag else {
            action.discard()
            throw .loopClosed()
        }
        guard let tag = queues.tag(for: action.sharedWord) ?? tagAfterSettlingLocked(action.sharedWord) else {
            action.discard()
            throw .tooManySharedWords()
        }
        let first = fireDate ?? timeSource.now().saturatingAdd(delay)
        let id = queues.arm(fireDate: first, interval: interval, tolerance: tolerance,
                            missedTicks: missedTicks, modeIndex: modeIndex, action: action, tag: tag, held: held)
        if held && Int(id.slot) >= TimerID.handleSlotLimit { try refuseHandle(id) }
        planWakeLocked(forTimerAt: first, tolerance: tolerance, modeIndex: modeIndex)
        if isHosted { updateHostLivenessLocked() }
        return id
    }

    /// The tag of `word` once a batch being handed over has been settled (its started records
    /// have fired and may keep tags no longer): asked only when every tag is kept.
    @inline(never)  // off the start's path
    private func tagAfterSettlingLocked(_ word: UInt) -> Int? {
        settleBatchLocked()
        return queues.tag(for: word)
    }

    /// Cancels an armed timer; returns false if it was already cancelled or finished. Callers that
    /// hold no other lock then call ``waitForCallback(of:)``, so that once their cancel returns no
    /// callback for the timer is still starting.
    @discardableResult
    func disarm(_ id: TimerID) -> Bool {
        // Not `withLock` (see `firePass`); the action is released after the lock, because what
        // it captured may call into the loop when freed.
        var action = TimerAction.idle
        lock.lock()
        let disarmed = disarmLocked(id, releasing: &action)
        deferReleaseIfFiringLocked(id, &action, onAnyThread: true)
        lock.unlock()
        if action.hasRelease { action.runRelease() }
        return disarmed
    }

    /// Takes back a timer just armed whose slot no C handle can name (TimerQueues+Handles.swift).
    @inline(never)
    private func refuseHandle(_ id: TimerID) throws(CadenceError) {
        var action = TimerAction.idle
        let index = Int(id.slot)
        _ = queues.disarm(id, releasing: &action)
        action.discard()  // not ended: the registering call fails
        queues.releaseHandle(at: index)
        throw .outOfMemory.with("loop must have fewer than \(TimerID.handleSlotLimit) timers armed for C "
                                + "handles to name a new one, got \(index) slots in use")
    }

    /// Leaves the release of a C callback that a disarm of `id` took out (`action`) to the
    /// callback of `id` running now, if one is, on this thread (a timer cancelling itself) or,
    /// with `onAnyThread`, on the loop's (for a caller that does not wait for it): the pass runs
    /// it once that callback has returned, and `action` becomes idle. Call with the lock held.
    @inline(__always)
    func deferReleaseIfFiringLocked(_ id: TimerID, _ action: inout TimerAction, onAnyThread: Bool) {
        guard action.hasRelease, firing == id,
              onAnyThread || pthread_equal(runningThread, pthread_self()) != 0 else { return }
        swap(&deferredRelease, &action)
        hasDeferredRelease = true
    }

    /// Disarms `id`. A host's wake-up that the timer was due by is planned again, so that a
    /// cancelled timer leaves a host's descriptor unreadable at its fire date; a run until idle
    /// left with nothing referenced is woken, so that it returns at once.
    func disarmLocked(_ id: TimerID, releasing action: inout TimerAction) -> Bool {
        guard !firedInBatchLocked(id) else { return false }  // FireBatch.swift
        let replan = hostModeIndex != nil && !isRunningFlag && queues.isArmed(id)
            && queues.slots[Int(id.slot)].fireDate <= armedWake
        guard queues.disarm(id, releasing: &action) else { return false }
        unbatchLocked(id)
        if replan { planHostWakeLocked() }
        if runningUntilIdle || hostIdleModeIndex != nil { wakeIdleRunIfDoneLocked() }
        if isHosted { updateHostLivenessLocked() }
        return true
    }

    /// Waits until a callback of `id` that is running on the loop's thread has returned. Returns
    /// at once on the loop's own thread (a callback cancelling a timer), where waiting would never end.
    func waitForCallback(of id: TimerID) {
        lock.withLock { waitForCallbackLocked(of: id) }
    }

    /// ``disarm(_:)`` and ``waitForCallback(of:)`` under one lock, for callers that hold no other.
    func disarmAndWait(_ id: TimerID) -> Bool {
        var action = TimerAction.idle  // released after the lock, as in `disarm`
        lock.lock()
        let disarmed = disarmLocked(id, releasing: &action)
        waitForCallbackLocked(of: id)
        // A timer cancelling itself: its end waits for its callback, which runs on this thread.
        deferReleaseIfFiringLocked(id, &action, onAnyThread: false)
        lock.unlock()
        if action.hasRelease { action.runRelease() }
        return disarmed
    }

    /// Whether a callback of `id` runs now, on another thread than this one (or `id` is in the
    /// batch of fires being handed over: FireBatch.swift). Call with the lock held.
    func isRunningCallbackLocked(of id: TimerID) -> Bool {
        (firing == id || fireBatch?.delivering == true && isDeliveringLocked(id))
            && pthread_equal(runningThread, pthread_self()) == 0
    }

    private func waitForCallbackLocked(of id: TimerID) {
        guard isRunningCallbackLocked(of: id) else { return }
        let running = callbacksStarted
        callbackWaiters += 1
        while firing == id && callbacksStarted == running || isDeliveringLocked(id) { lock.wait() }
        callbackWaiters -= 1
    }

    /// Moves an armed timer's next fire date to `delay` after a fresh clock read (see
    /// ``TimerQueues/reset(_:fireDate:)``).
    ///
    /// - Throws: ``CadenceError/alreadyCancelled`` if the timer was cancelled or is a one-shot
    ///   whose callback has started; ``CadenceError/badHandle`` after ``close()``.
    func reset(_ id: TimerID, delay: Nanoseconds) throws(CadenceError) {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosedFlag else { throw .loopClosed() }
        guard !firedInBatchLocked(id), queues.reset(id, fireDate: timeSource.now().saturatingAdd(delay)) else {
            throw .timerEnded()
        }
        unbatchLocked(id)
        replanWakeLocked()  // the wake-up may move earlier or, for the timer it was due by, later
    }

    /// An armed timer's next fire date (in seconds on the fire-date scale), interval and tolerance
    /// (seconds); nil if it is no longer armed.
    func schedule(of id: TimerID) -> (fireDate: Double, interval: Double, tolerance: Double)? {
        lock.lock()
        let schedule = firedInBatchLocked(id) ? nil : queues.schedule(of: id)
        lock.unlock()
        guard let schedule else { return nil }
        return (MonotonicClock.seconds(schedule.fireDate, offset: timeSource.epochOffset),
                Double(schedule.interval) / 1e9, Double(schedule.tolerance) / 1e9)
    }

    /// Whether a timer is still armed.
    func isArmed(_ id: TimerID) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return !firedInBatchLocked(id) && queues.isArmed(id)
    }

    /// The interned index of a registered mode.
    func modeIndex(of mode: RunLoopMode) throws(CadenceError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return try modeIndexLocked(of: mode)
    }

    func modeIndexLocked(of mode: RunLoopMode) throws(CadenceError) -> Int {
        guard !isClosedFlag else { throw .loopClosed() }
        // The built-in modes without calling into `queues`, which would copy it (an opaque call
        // on a class's struct property reads a copy).
        if let builtin = mode.builtinIndex { return builtin }
        return try queues.index(of: mode)
    }
}
