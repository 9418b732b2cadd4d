import Glibc

/// The C API's scheduled timers and the host's functions per loop (cadence_loop_set_callbacks):
/// two words that the handlers a host arms read when armed (``PlainTimerHandler/armed(_:loop:)``;
/// in C, a fire function for one-shots armed without one, `cadence_loop_schedule_default`, and a
/// release function for registrations that end without a final call). The engine keeps them and
/// never reads them. A C timer's handle names its slot (TimerQueues+Handles.swift): every call
/// here finds it under the loop's lock alone. Package API, for the handle registry (Registry/) and
/// the C layer only.
extension Loop {
    /// Sets the host's functions for the registrations armed from now on, as words (0 clears
    /// either). Timers armed before keep what they were armed with.
    ///
    /// - Throws: ``CadenceError/badHandle`` after ``close()``.
    package func setHostFunctions(_ functions: LoopFunctionWords) throws(CadenceError) {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosedFlag else { throw .loopClosed() }
        hostFunctions = functions
    }

    /// Once the loop is closed, the generation each of its timer slots would have next (by slot
    /// index; past every one handed out): a loop that takes its place among the registry's loops
    /// starts its slots there (``inheritGenerations(_:)``), so that no handle of this one names a
    /// timer of that one (TimerQueues+Generations.swift).
    var slotGenerations: SlotGenerations {
        lock.lock()
        defer { lock.unlock() }
        return queues.inheritedGenerations
    }

    /// Makes this new loop's timer slots start at `generations` (by slot index), a closed loop's
    /// ``slotGenerations``; called before its first timer.
    func inheritGenerations(_ generations: SlotGenerations) {
        lock.lock()
        queues.inheritGenerations(generations)
        lock.unlock()
    }

    /// For tests of stale handles: moves the generation of each of the loop's timer slots (those
    /// its timers have used, and those its predecessor in the registry had) `reuses` further, as
    /// if each had held that many more timers. A slot that reaches 2^24 (16,777,216) is retired:
    /// no timer takes it again. Generations only move forward, so no handle can match again.
    ///
    /// - Throws: ``CadenceError/busy`` while a timer is armed or a C handle of one is not
    ///   released; ``CadenceError/badHandle`` after ``close()``.
    package func ageTimerSlots(by reuses: UInt32) throws(CadenceError) {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosedFlag else { throw .loopClosed() }
        guard queues.age(by: reuses) else {
            throw .busy.with("loop must have no timer armed and no scheduled timer's handle unreleased to age its "
                             + "timer slots, got \(queues.count) armed and \(queues.heldCount) handles held")
        }
    }

    /// Sets the bits that, with a timer's ``TimerID/handleBits``, make its C handle: the source
    /// a C callback receives. Set once, before any timer is armed; one word per loop rather than
    /// per timer.
    package func setHandleSource(_ bits: UInt64) {
        lock.lock()
        handleSource = bits
        lock.unlock()
    }

    // MARK: Arming

    /// The handler a C registration arms, from the one it passed (``PlainTimerHandler/armed(_:loop:)``)
    /// and the loop's functions set now. Call with the lock held, on an open loop.
    @inline(__always)
    private func armedLocked(_ handler: PlainHandler) throws(CadenceError) -> TimerAction {
        TimerAction(try handler.type.armed(handler.words, loop: hostFunctions))
    }

    /// The host's functions set now, read together (a registration racing with
    /// ``setHostFunctions(_:)`` gets the old pair or the new one).
    var functionWords: LoopFunctionWords { lock.withLock { hostFunctions } }

    /// Arms `handler` (``armedLocked(_:)``) as a one-shot (`interval` nil) or repeating timer for a C
    /// handle; returns the handle's bits (``TimerID/handleBits``).
    ///
    /// - Throws: as ``schedule(after:interval:tolerance:in:missedTicks:_:)-(Double,_,_,_,_,_)``;
    ///   what ``PlainTimerHandler/armed(_:loop:)`` throws; ``CadenceError/outOfMemory`` if no
    ///   handle can name the slot.
    @inline(__always)
    package func scheduleHandle(after delay: Double, interval: Double?, tolerance: Double, in mode: RunLoopMode,
                                missedTicks: MissedTickPolicy, _ handler: PlainHandler) throws(CadenceError) -> UInt64 {
        let delay = try nanoseconds(fromSeconds: delay, allowZero: true, argument: "delay")
        let interval = try interval.map { seconds throws(CadenceError) in
            try nanoseconds(fromSeconds: seconds, allowZero: false, argument: "interval")
        } ?? 0
        let tolerance = try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance")
        lock.lock()
        defer { lock.unlock() }
        guard !isClosedFlag else { throw .loopClosed() }
        return try armLocked(delay: delay, at: nil, interval: interval, tolerance: tolerance, missedTicks: missedTicks,
                             modeIndex: try modeIndexLocked(of: mode), action: try armedLocked(handler),
                             held: true).handleBits
    }

    /// A one-shot in the default mode with no tolerance, of `handler` (``armedLocked(_:)``):
    /// `cadence_loop_schedule_default`. Returns the handle's bits.
    ///
    /// - Throws: ``CadenceError/invalidArgument`` for a bad `delay`; what `handler` throws;
    ///   ``CadenceError/badHandle`` after ``close()``; ``CadenceError/outOfMemory`` as above.
    @inline(__always)
    func scheduleDefault(after delay: Double, _ handler: PlainHandler) throws(CadenceError) -> UInt64 {
        let delay = try nanoseconds(fromSeconds: delay, allowZero: true, argument: "delay")
        lock.lock()
        defer { lock.unlock() }
        guard !isClosedFlag else { throw .loopClosed() }
        return try armLocked(delay: delay, at: nil, interval: 0, tolerance: 0, missedTicks: .skip,
                             modeIndex: TimerQueues.defaultIndex, action: try armedLocked(handler),
                             held: true).handleBits
    }

    /// A one-shot in the default mode, of `handler` (``armedLocked(_:)``), due at `date` (seconds of
    /// the loop's monotonic clock: ``nanoseconds(fromDate:argument:)``) and up to `tolerance`
    /// later, whose handle ends with the timer (``HandleState/transient``):
    /// `cadence_loop_schedule_transient`. Returns the handle's bits. A date that has passed is
    /// due at once (it fires in the next pass).
    ///
    /// - Throws: ``CadenceError/invalidArgument`` for a NaN or infinite `date` or a bad
    ///   `tolerance`; what `handler` throws; ``CadenceError/badHandle`` after ``close()``;
    ///   ``CadenceError/outOfMemory`` if no handle can name the slot.
    @inline(__always)
    func scheduleTransient(at date: Double, tolerance: Double, _ handler: PlainHandler) throws(CadenceError) -> UInt64 {
        let fireDate = try nanoseconds(fromDate: date, argument: "fire_date")
        let tolerance = try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance")
        lock.lock()
        defer { lock.unlock() }
        guard !isClosedFlag else { throw .loopClosed() }
        let id = try armLocked(delay: 0, at: fireDate, interval: 0, tolerance: tolerance, missedTicks: .skip,
                               modeIndex: TimerQueues.defaultIndex, action: try armedLocked(handler),
                               held: true)
        queues.slots[Int(id.slot)].handle = .transient
        return id.handleBits
    }

    // MARK: Handles

    /// What ``cancelHandle(_:givingUp:releasing:)`` did.
    package struct HandleOutcome {
        /// The handle named a held slot (else it is stale, released, or never made).
        package let isValid: Bool
        /// This call stopped the timer.
        package let stopped: Bool
        /// The timer's callback runs on another thread: wait with ``waitForCallback(packedID:)``.
        package let callbackRunning: Bool
        /// The timer's ``TimerID/packed`` id.
        package let packedID: UInt64

        static let invalid = HandleOutcome(isValid: false, stopped: false, callbackRunning: false, packedID: 0)
    }

    /// Cancels the timer of a C handle (`givingUp` false: `cadence_cancel`), or releases the
    /// handle (`givingUp`: `cadence_cancellable_release`), which cancels a repeating timer that was
    /// not detached and leaves a one-shot armed. A cancel leaves the disarmed action in `release`,
    /// for the caller to run ``TimerAction/finishCancel()`` once it holds no lock and has waited for
    /// a callback running on another thread (idle when the timer's own callback is the caller: the
    /// pass releases once it has returned). Inlined into the registry's one call for a C cancel.
    @inline(__always)
    package func cancelHandle(_ bits: UInt64, givingUp: Bool, releasing release: inout TimerAction) -> HandleOutcome {
        lock.lock()
        defer { lock.unlock() }
        return cancelHandleLocked(bits, givingUp: givingUp, releasing: &release)
    }

    /// ``cancelHandle(_:givingUp:releasing:)`` (a cancel, not a release) of the handles of
    /// `handles[range]`, all of this loop, in order under one hold of the lock; before each, the
    /// slot of the handle ``TimerQueues/prefetchDistance`` ahead is asked for, so that a batch's
    /// cache misses overlap instead of coming one after another. Appends each handle's outcome
    /// and release action, for the caller to finish as it finishes one cancel's. Stops after a
    /// handle whose cancel runs code of the program once the lock is let go (a release function
    /// to call, or a callback running on another thread to wait for), which may touch the next
    /// handles: those are then cancelled after it, as one call after another would. Returns where
    /// it stopped.
    package func cancelHandles(_ handles: UnsafeBufferPointer<UInt64>, _ range: Range<Int>,
                               outcomes: inout [HandleOutcome], releasing actions: inout [TimerAction]) -> Int {
        lock.lock()
        defer { lock.unlock() }
        for index in range {
            let ahead = index + TimerQueues.prefetchDistance
            if ahead < range.upperBound { queues.prefetchHandle(handles[ahead] & HandleRegistry.bitsMask) }
            var release = TimerAction.none
            let outcome = cancelHandleLocked(handles[index] & HandleRegistry.bitsMask, givingUp: false, releasing: &release)
            outcomes.append(outcome)
            actions.append(release)
            if outcome.callbackRunning || release.handBackKey == nil && release.hasRelease { return index + 1 }
        }
        return range.upperBound
    }

    @inline(__always)
    private func cancelHandleLocked(_ bits: UInt64, givingUp: Bool, releasing release: inout TimerAction) -> HandleOutcome {
        guard let index = queues.heldSlot(bits), !givingUp || queues.slots[index].handle != .released else {
            return .invalid  // a second release of a released, detached handle too
        }
        let id = queues.id(ofSlot: index)
        let stop = !givingUp || queues.interval(at: index) > 0 && queues.slots[index].handle == .held
        var stopped = false, running = false
        if stop {
            stopped = disarmLocked(id, releasing: &release)
            running = isRunningCallbackLocked(of: id)
            deferReleaseIfFiringLocked(id, &release, onAnyThread: false)
        }
        if givingUp { queues.releaseHandle(at: index) }
        return HandleOutcome(isValid: true, stopped: stopped, callbackRunning: running, packedID: id.packed)
    }

    /// Detaches a C handle: releasing it then leaves its timer armed. False for a dead handle.
    package func detachHandle(_ bits: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let index = queues.heldSlot(bits), queues.slots[index].handle != .released else { return false }
        if queues.slots[index].handle != .transient { queues.slots[index].handle = .detached }  // a one-shot's
        return true
    }

    /// The ``TimerID/packed`` id of a C handle's timer (which may have ended); nil for a dead handle.
    package func packedID(ofHandle bits: UInt64) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        return queues.heldSlot(bits).map { queues.id(ofSlot: $0).packed }
    }

    /// Whether a C handle's timer has ended (cancelled, or a one-shot that fired); nil for a dead handle.
    package func hasEnded(handle bits: UInt64) -> Bool? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = queues.heldSlot(bits) else { return nil }
        return firedInBatchLocked(queues.id(ofSlot: index)) || !queues.slots[index].isArmed
    }
}

extension TimerAction {
    /// An action with nothing to release.
    package static var none: TimerAction { .idle }

    /// Runs the release a cancel handed over (see ``Loop/cancelHandle(_:givingUp:releasing:)``);
    /// nothing for an action without one.
    package func finishCancel() {
        if hasRelease { runRelease() }
    }
}
