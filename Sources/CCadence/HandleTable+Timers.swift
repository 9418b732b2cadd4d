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
    func insertTimer(loop loopID: UInt64,
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
        storage.slots[index].owner = loopID
        return id
    }

    /// Cancels the scheduled timer behind a live handle; nil for any other handle, else whether
    /// the timer was still armed. A callback of the timer running on another thread is waited for
    /// after the table's lock is released (the callback may be waiting for that lock).
    func cancelTimer(_ id: UInt64) -> Bool? {
        lock.lock()
        guard let index = index(id), storage.slots[index].kind == .timer,
              let loop = borrowedLoop(storage.slots[index].owner) else {
            lock.unlock()
            return nil
        }
        let timer = storage.slots[index].word
        let (cancelled, callbackRunning) = loop._withUnsafeGuaranteedRef { $0.cancel(packedID: timer) }
        let waitOn = callbackRunning ? loop.takeUnretainedValue() : nil  // kept past the lock
        lock.unlock()
        waitOn?.waitForCallback(packedID: timer)
        return cancelled
    }

    /// The scheduled timer behind a live handle; nil for any other handle.
    func timer(_ id: UInt64) -> ScheduledTimer? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id), storage.slots[index].kind == .timer,
              let loop = loopLocked(storage.slots[index].owner) else { return nil }
        return ScheduledTimer(loop: loop, packedID: storage.slots[index].word)
    }

    /// Frees a scheduled timer's handle, leaving the timer armed; false for any other handle.
    func removeTimer(_ id: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id), storage.slots[index].kind == .timer else { return false }
        Self.free(index, in: &storage)
        return true
    }
}
