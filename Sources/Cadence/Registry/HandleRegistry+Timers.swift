/// Scheduled timers (one-shot and repeating) have no slot in the registry: a timer's handle is
/// `1 << 59 | place << 48 | bits`, the place of its loop among ``Storage/loops`` and the
/// engine's 48 bits for its timer slot (slot and generation), which the loop keeps for the handle
/// until it is released (TimerQueues+Handles.swift). A cancel then reads one entry of a small
/// array here, hot in the cache, and the timer's slot, which it must touch anyway. The loop is
/// borrowed under the registry's lock, never retained, except by a cancel that must wait for a
/// running callback. Lock order: the registry's, then the loop's.
extension HandleRegistry {
    /// Bit 59, not 63: every handle is then below 2⁶⁰, which Python keeps in an int of two digits
    /// (32 bytes, where three take a 48-byte block: 16 bytes of every pending timer's).
    static let timerTag: UInt64 = 1 << 59
    /// The engine's bits of a timer's handle (its slot and generation).
    static let bitsMask: UInt64 = 1 << 48 - 1

    /// Whether `id` has the form of a scheduled timer's handle (live or not): bit 59 set and no
    /// bit above it, so that an id with any of bits 60 to 63 set (none was ever issued; handles
    /// of earlier versions had bit 63) never names the timer its low bits name.
    @inline(__always)
    static func isTimer(_ id: UInt64) -> Bool { id >> 59 == 1 }

    /// The loop that a timer handle names, borrowed: valid while the lock is held.
    @inline(__always)
    private func timerLoop(_ id: UInt64) -> Unmanaged<Loop>? {
        let place = Int(truncatingIfNeeded: id >> 48) & (Self.loopLimit - 1)
        guard Self.isTimer(id), place < storage.loops.count else { return nil }
        return storage.loops[place].loop
    }

    /// The high bits of the handles of the timers of the loop in place `place`: what the loop
    /// puts with a timer's bits as its callbacks' source (``Loop/setHandleSource(_:)``).
    static func timerSource(place: Int) -> UInt64 { timerTag | UInt64(place) << 48 }

    /// Looks up the loop behind `loopID` and arms the timer that `arm` makes (given the loop; it
    /// returns the engine's handle bits), in one critical section: a loop destroyed meanwhile
    /// fails the look-up or makes `arm` throw ``CadenceError/badHandle``. Returns the timer's handle.
    @inline(__always)
    func insertTimer(loop loopID: UInt64, _ arm: (Loop) throws(CadenceError) -> UInt64) throws(CadenceError) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        guard let loop = borrowedLoop(loopID), let index = index(loopID) else {
            throw .deadHandle("loop", loopID, kind: "loop")
        }
        let armed = loop._withUnsafeGuaranteedRef { loop in
            Result { () throws(CadenceError) in try arm(loop) }
        }
        return Self.timerSource(place: Int(storage.slots[index].place)) | (try armed.get())
    }

    /// Cancels the scheduled timer behind a live handle (`givingUp`: releases the handle, which
    /// cancels a repeating timer that was not detached); nil for any other handle, else whether
    /// this call stopped the timer. A callback of the timer running on another thread is waited
    /// for after the registry's lock is released (the callback may be waiting for that lock), and
    /// then the userdata's release runs (cadence_loop_set_callbacks), with no lock held; `stealing`
    /// (`cadence_cancel_steal`), a userdata that can be handed back is returned as `key`
    /// instead, and its release is not called (``HandleRegistry/cancel(_:handingBack:)``).
    @inline(__always)
    func cancelTimer(_ id: UInt64, givingUp: Bool = false, stealing: Bool = false) -> (stopped: Bool, key: Int)? {
        lock.lock()
        guard let loop = timerLoop(id) else {
            lock.unlock()
            return nil
        }
        var release = TimerAction.none
        let outcome = loop._withUnsafeGuaranteedRef {
            $0.cancelHandle(id & Self.bitsMask, givingUp: givingUp, releasing: &release)
        }
        let waitOn = outcome.callbackRunning ? loop.takeUnretainedValue() : nil  // kept past the lock
        lock.unlock()
        return Self.finishCancel(outcome, release, waitingOn: waitOn, stealing: stealing)
    }

    /// What a cancel does once its locks are let go: nil for a dead handle; else waits for the
    /// timer's callback running on another thread (on `loop`, kept past the lock), then hands
    /// back the key (`stealing`, when the userdata can be) or runs the release.
    @inline(__always)
    private static func finishCancel(_ outcome: Loop.HandleOutcome, _ release: TimerAction, waitingOn loop: Loop?,
                                     stealing: Bool) -> (stopped: Bool, key: Int)? {
        guard outcome.isValid else { return nil }
        if outcome.callbackRunning { loop?.waitForCallback(packedID: outcome.packedID) }
        if stealing, let key = release.handBackKey { return (outcome.stopped, key) }
        release.finishCancel()
        return (outcome.stopped, 0)
    }

    /// ``cancelTimer(_:givingUp:stealing:)`` (stealing) of the handles from `handles[start]` on
    /// that name timers of the same loop, at most ``runLength`` of them: the registry's lock and
    /// the loop's held once for the run (``Loop/cancelHandles(_:_:outcomes:releasing:)``, which
    /// asks for each slot ahead of its cancel and ends the run at a cancel that runs the
    /// program's code). Then, with no lock held, for each in order, what the single cancel does
    /// after its locks: waits for a callback running on another thread, hands the key back or
    /// finishes the cancel, and passes the outcome to `result` (nil for a dead handle). Returns
    /// how many handles it took: 0 when `handles[start]` is not a live loop's timer handle (its
    /// caller cancels that one alone).
    func cancelTimerRun(_ handles: UnsafeBufferPointer<UInt64>, from start: Int,
                        _ result: (Int, (stopped: Bool, key: Int)?) -> Void) -> Int {
        let place = handles[start] >> 48  // the tag and the loop's place: one loop
        let end = handles[start...].prefix(Self.runLength).firstIndex { $0 >> 48 != place } ?? min(handles.count, start + Self.runLength)
        var outcomes: [Loop.HandleOutcome] = [], actions: [TimerAction] = []
        outcomes.reserveCapacity(end - start)
        actions.reserveCapacity(end - start)
        lock.lock()
        guard let loop = timerLoop(handles[start]) else {
            lock.unlock()
            return 0
        }
        let stop = loop._withUnsafeGuaranteedRef { $0.cancelHandles(handles, start..<end, outcomes: &outcomes, releasing: &actions) }
        let waitOn = outcomes.contains { $0.callbackRunning } ? loop.takeUnretainedValue() : nil  // kept past the lock
        lock.unlock()
        for (offset, outcome) in outcomes.enumerated() {
            result(start + offset, Self.finishCancel(outcome, actions[offset], waitingOn: waitOn, stealing: true))
        }
        return stop - start
    }

    /// How many handles ``cancelTimerRun(_:from:_:)`` takes at most under one hold of the locks:
    /// a few microseconds, so that another thread's call waits no longer than that.
    static let runLength = 64

    /// Detaches a scheduled timer's handle; false for any other handle.
    func detachTimer(_ id: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return timerLoop(id)?._withUnsafeGuaranteedRef { $0.detachHandle(id & Self.bitsMask) } ?? false
    }

    /// Whether the scheduled timer behind a live handle has ended; nil for any other handle.
    func timerHasEnded(_ id: UInt64) -> Bool? {
        lock.lock()
        defer { lock.unlock() }
        return timerLoop(id)?._withUnsafeGuaranteedRef { $0.hasEnded(handle: id & Self.bitsMask) }
    }

    /// The scheduled timer behind a live handle; nil for any other handle.
    package func timer(_ id: UInt64) -> ScheduledTimer? {
        lock.lock()
        defer { lock.unlock() }
        guard let loop = timerLoop(id)?.takeUnretainedValue(),
              let packedID = loop.packedID(ofHandle: id & Self.bitsMask) else { return nil }
        return ScheduledTimer(loop: loop, packedID: packedID)
    }
}

/// The starts of scheduled timers (see ``Handles``).
extension Handles {
    /// ``HandleRegistry/cancelTimerRun(_:from:_:)``.
    package static func cancelTimerRun(_ handles: UnsafeBufferPointer<UInt64>, from start: Int,
                                       _ result: (Int, (stopped: Bool, key: Int)?) -> Void) -> Int {
        HandleRegistry.shared.cancelTimerRun(handles, from: start, result)
    }

    /// Arms `handler` (a C callback) as a one-shot (`interval` nil) or repeating
    /// timer on the loop behind `loopID` (``Loop/scheduleHandle(after:interval:tolerance:in:missedTicks:_:)``);
    /// returns its handle.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead or destroyed loop; as `scheduleHandle`.
    package static func schedule(loop loopID: UInt64, after delay: Double, interval: Double?, tolerance: Double,
                                 in mode: RunLoopMode, missedTicks: MissedTickPolicy,
                                 _ handler: PlainHandler) throws(CadenceError) -> UInt64 {
        try HandleRegistry.shared.insertTimer(loop: loopID) { loop throws(CadenceError) in
            try loop.scheduleHandle(after: delay, interval: interval, tolerance: tolerance, in: mode,
                                    missedTicks: missedTicks, handler)
        }
    }

    /// Arms a one-shot in the default mode of `handler` on the loop behind
    /// `loopID` (``Loop/scheduleDefault(after:_:)``); returns its handle.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead or destroyed loop; as `scheduleDefault`.
    package static func scheduleDefault(loop loopID: UInt64, after delay: Double,
                                        _ handler: PlainHandler) throws(CadenceError) -> UInt64 {
        try HandleRegistry.shared.insertTimer(loop: loopID) { loop throws(CadenceError) in
            try loop.scheduleDefault(after: delay, handler)
        }
    }

    /// Arms a one-shot whose handle ends with it, of `handler`, on the loop
    /// behind `loopID` (``Loop/scheduleTransient(at:tolerance:_:)``); returns its handle.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead or destroyed loop; as `scheduleTransient`.
    package static func scheduleTransient(loop loopID: UInt64, at date: Double, tolerance: Double,
                                          _ handler: PlainHandler) throws(CadenceError) -> UInt64 {
        try HandleRegistry.shared.insertTimer(loop: loopID) { loop throws(CadenceError) in
            try loop.scheduleTransient(at: date, tolerance: tolerance, handler)
        }
    }
}
