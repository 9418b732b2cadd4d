/// The C API's handles of scheduled timers, kept in the timer table itself: a handle names its
/// timer's slot and the low ``TimerID/handleGenerationBits`` bits of the slot's generation, and
/// the slot stays the timer's (ended, not reused) until the handle is released. So a handle's
/// look-up is the read of the slot that arming, cancelling and firing read anyway: no table of
/// the handle registry (Registry/HandleRegistry.swift), no second cache miss per cancel.
///
/// A handle that was detached and then released while its repeating timer runs stays valid as the
/// source its callbacks receive, so that a callback can still cancel it, until the timer ends (as
/// the registry's other detached handles).
enum HandleState: UInt8 {
    /// No C handle names the slot.
    case none
    /// A C handle names it; releasing the handle cancels a repeating timer.
    case held
    /// A C handle names it and was detached: releasing it leaves the timer running.
    case detached
    /// Detached and released while a repeating timer runs: valid as its callbacks' source until
    /// the timer ends.
    case released
    /// A C handle that ends with its one-shot (`cadence_loop_schedule_transient`): the fire, a
    /// cancel or the loop's close releases it, so its holder never needs to.
    case transient
}

extension TimerID {
    /// The generation bits a handle keeps, and the slots a handle can name.
    static let handleGenerationBits: UInt64 = 24
    static let handleSlotLimit = 1 << 24
    /// The generation at which a slot is retired (TimerQueues+Generations.swift): 2^24, one past
    /// the last that a handle's ``handleGenerationBits`` hold, so a handle's bits are its timer's
    /// whole generation and never match a later timer of the slot.
    static let generationLimit: UInt32 = 1 << 24

    /// The 48 bits a C handle keeps: the slot, then the low bits of the generation.
    var handleBits: UInt64 {
        UInt64(slot) << Self.handleGenerationBits | UInt64(generation) & (1 << Self.handleGenerationBits - 1)
    }
}

extension TimerQueues {
    /// The slot that a handle's bits name, while the handle is valid (its timer may have ended).
    /// Mutating only so that a call on the loop's stored queues borrows them in place: as a
    /// non-mutating call it copied the whole struct (a retain and a release of each of its
    /// buffers, a fifth of a C cancel's time).
    @inline(__always)
    mutating func heldSlot(_ bits: UInt64) -> Int? {
        let index = Int(truncatingIfNeeded: bits >> TimerID.handleGenerationBits)
        let mask: UInt64 = 1 << TimerID.handleGenerationBits - 1
        guard index < slots.count, slots[index].handle != .none,
              UInt64(slots[index].generation) & mask == bits & mask else { return nil }
        return index
    }

    /// Asks for the slot that the handle bits `bits` name, ahead of a cancel of it
    /// (``prefetchSlot(_:)``, mutating for the reason it gives).
    @inline(__always)
    mutating func prefetchHandle(_ bits: UInt64) {
        prefetchSlot(Int(truncatingIfNeeded: bits >> TimerID.handleGenerationBits))
    }

    /// The id of the timer in a held slot (armed or ended).
    @inline(__always)
    func id(ofSlot index: Int) -> TimerID { TimerID(slot: UInt32(index), generation: slots[index].generation) }

    /// Releases the handle of a held slot: an ended timer's slot is reused from now on, an armed
    /// one's once the timer ends; a detached handle of an armed repeating timer stays valid until
    /// then (a one-shot's does not: detaching changes nothing for a one-shot).
    mutating func releaseHandle(at index: Int) {
        if slots[index].isArmed && slots[index].handle == .detached && interval(at: index) > 0 {
            slots[index].handle = .released
            return
        }
        slots[index].handle = .none
        heldCount -= 1
        if !slots[index].isArmed { recycle(UInt32(index)) }
    }
}
