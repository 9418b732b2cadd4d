import Cadence

/// Scheduled timers of the C API (one-shot and repeating): the handle's slot holds the timer's
/// engine id, so arming one costs a slot in this table and nothing else of the C layer. The loop is borrowed under the
/// table's lock, never retained, except by a cancel that must wait for a running callback.
extension HandleTable {
    /// Looks up the loop behind `loopID`, reserves a handle, and arms the timer that `arm` makes
    /// (given the loop and the new handle's id; it returns the timer's engine id) in one critical
    /// section: no callback can see the handle before it names its timer, and a loop destroyed
    /// meanwhile fails the look-up or makes `arm` throw ``CadenceError/badHandle``. Lock order:
    /// this table's, then the loop's.
    @inline(__always)
    func insertTimer(loop loopID: UInt64, repeats: Bool,
                     _ arm: (Loop, UInt64) throws(CadenceError) -> UInt64) throws(CadenceError) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        guard let loop = borrowedLoop(loopID) else { throw .deadHandle("loop", loopID, kind: "loop") }
        let (index, id) = Self.reserve(in: &storage)
        let armed = loop._withUnsafeGuaranteedRef { loop in
            Result { () throws(CadenceError) in try arm(loop, id) }
        }
        switch armed {
        case .success(let timer):
            storage.slots[index].word = timer
        case .failure(let error):
            storage.free.append(index)  // the id never escaped: the generation can stay
            throw error
        }
        storage.slots[index].kind = .timer
        storage.slots[index].repeats = repeats
        storage.slots[index].owner = loopID
        return id
    }

    /// Cancels the scheduled timer behind a live handle; nil for any other handle, else whether
    /// the timer was still armed. A callback of the timer running on another thread is waited for
    /// after the table's lock is released (the callback may be waiting for that lock), and then
    /// the userdata's release runs (cadence_loop_set_callbacks), with no lock held.
    func cancelTimer(_ id: UInt64) -> Bool? {
        lock.lock()
        guard let index = index(id), storage.slots[index].kind == .timer else {
            lock.unlock()
            return nil
        }
        return cancelTimerLocked(at: index, freeing: false)
    }

    /// Frees a scheduled timer's handle; nil for any other handle. A repeating timer whose handle
    /// was not detached is cancelled as by ``cancelTimer(_:)``; a one-shot goes on (fire-and-forget).
    func releaseTimer(_ id: UInt64) -> Bool? {
        lock.lock()
        guard let index = index(id), storage.slots[index].kind == .timer else {
            lock.unlock()
            return nil
        }
        guard storage.slots[index].repeats && !storage.slots[index].detached else {
            Self.free(index, in: &storage)
            lock.unlock()
            return true
        }
        _ = cancelTimerLocked(at: index, freeing: true)
        return true
    }

    /// Cancels the timer of the live timer slot at `index`, with the lock held (released here),
    /// freeing the slot first if `freeing`; nil if its loop is being destroyed (its close has
    /// ended the timer, its sweep of the handles comes next).
    private func cancelTimerLocked(at index: Int, freeing: Bool) -> Bool? {
        let timer = storage.slots[index].word
        guard let loop = borrowedLoop(storage.slots[index].owner) else {
            if freeing { Self.free(index, in: &storage) }
            lock.unlock()
            return nil
        }
        if freeing { Self.free(index, in: &storage) }
        var release = TimerAction.none
        let (cancelled, callbackRunning) = loop._withUnsafeGuaranteedRef { $0.cancel(packedID: timer, releasing: &release) }
        let waitOn = callbackRunning ? loop.takeUnretainedValue() : nil  // kept past the lock
        lock.unlock()
        waitOn?.waitForCallback(packedID: timer)
        release.finishCancel()
        return cancelled
    }

    /// Detaches a scheduled timer's handle; false for any other handle.
    func detachTimer(_ id: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id), storage.slots[index].kind == .timer else { return false }
        storage.slots[index].detached = true
        return true
    }

    /// The scheduled timer behind a live handle; nil for any other handle.
    func timer(_ id: UInt64) -> ScheduledTimer? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id), storage.slots[index].kind == .timer,
              let loop = loopLocked(storage.slots[index].owner) else { return nil }
        return ScheduledTimer(loop: loop, packedID: storage.slots[index].word)
    }
}
