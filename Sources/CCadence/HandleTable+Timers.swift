import Cadence

/// One-shot timers of the C API: the handle's slot holds the timer's engine id, so arming one
/// costs a slot in this table and nothing else of the C layer.
extension HandleTable {
    /// Looks up the loop behind `loopID`, reserves a handle, and arms the timer that `arm` makes
    /// (given the loop and the new handle's id) in one critical section: no callback can see the
    /// handle before it names its timer, and a loop destroyed meanwhile fails the look-up or makes
    /// `arm` throw ``CadenceError/badHandle``. Lock order: this table's, then the loop's.
    @inline(__always)
    func insertTimer(loop loopID: UInt64,
                     _ arm: (Loop, UInt64) throws(CadenceError) -> ScheduledTimer) throws(CadenceError) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        guard let loop = Self.loop(loopID, in: storage) else { throw .badHandle }
        let (index, id) = Self.reserve(in: &storage)
        do throws(CadenceError) {
            storage.slots[index].timer = try arm(loop, id).packedID
        } catch {
            storage.free.append(index)  // the id never escaped: the generation can stay
            throw error
        }
        storage.slots[index].kind = .timer
        storage.slots[index].owner = loopID
        return id
    }

    /// The one-shot timer behind a live handle; nil for any other handle.
    func timer(_ id: UInt64) -> ScheduledTimer? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = Self.index(id, in: storage), storage.slots[index].kind == .timer,
              let loop = Self.loop(storage.slots[index].owner, in: storage) else { return nil }
        return ScheduledTimer(loop: loop, packedID: storage.slots[index].timer)
    }

    /// Frees a one-shot timer's handle, leaving the timer armed; false for any other handle.
    func removeTimer(_ id: UInt64) -> Bool {
        lock.withLock {
            guard let index = Self.index(id, in: storage), storage.slots[index].kind == .timer else { return false }
            Self.free(index, in: &storage)
            return true
        }
    }
}
