/// The C API's handles of scheduled timers, kept in the timer table itself: a handle names its
/// timer's slot and the low ``TimerID/handleGenerationBits`` bits of the slot's generation, and
/// the slot stays the timer's (ended, not reused) until the handle is released. So a handle's
/// look-up is the read of the slot that arming, cancelling and firing read anyway: no table of
/// the C layer, no second cache miss per cancel.
extension TimerID {
    /// The generation bits a handle keeps (a stale handle matches again only after this many
    /// reuses of its slot), and the slots a handle can name.
    static let handleGenerationBits: UInt64 = 24
    static let handleSlotLimit = 1 << 24

    /// The 48 bits a C handle keeps: the slot, then the low bits of the generation.
    var handleBits: UInt64 {
        UInt64(slot) << Self.handleGenerationBits | UInt64(generation) & (1 << Self.handleGenerationBits - 1)
    }
}

extension TimerQueues {
    /// The slot that a handle's bits name, while the handle is held (its timer may have ended).
    @inline(__always)
    func heldSlot(_ bits: UInt64) -> Int? {
        let index = Int(truncatingIfNeeded: bits >> TimerID.handleGenerationBits)
        let mask: UInt64 = 1 << TimerID.handleGenerationBits - 1
        guard index < slots.count, slots[index].isHeld,
              UInt64(slots[index].generation) & mask == bits & mask else { return nil }
        return index
    }

    /// The id of the timer in a held slot (armed or ended).
    @inline(__always)
    func id(ofSlot index: Int) -> TimerID { TimerID(slot: UInt32(index), generation: slots[index].generation) }

    /// Releases the handle of a held slot: an ended timer's slot is reused from now on, an armed
    /// one's once the timer ends.
    mutating func releaseHandle(at index: Int) {
        slots[index].isHeld = false
        heldCount -= 1
        if !slots[index].isArmed { recycle(UInt32(index)) }
    }
}
