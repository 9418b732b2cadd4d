/// How the timer table keeps every id, and every C handle, naming one timer for good.
///
/// A slot's generation moves on each time its timer ends (once its C handle, if any, is
/// released), from 1 up to ``TimerID/generationLimit`` − 1, the last a handle's 24 generation
/// bits hold; a slot that reaches the limit is retired and never taken again (``recycle(_:)``).
/// So a slot never has the same generation twice, and a stale id or handle cannot match a later
/// timer, however many times its slot has been reused: no counter wraps. What this costs is one
/// compare per recycle, and a retired slot (its bytes in the table) per 16,777,215 timers that
/// one slot has held.
///
/// No path brings an old generation back:
/// - when the table empties, the next timers take slots 0, 1, 2, … again, but the slots stay,
///   with their generations, and retired ones are skipped (``nextSlot()``);
/// - a large table that empties drops its slots (``giveSlotsBack()``), but their generations stay
///   in ``inheritedGenerations`` (a floor per chunk of slots: SlotGenerations.swift), and the
///   slots made again start there;
/// - closing the loop drops the slots, but their generations stay in ``inheritedGenerations``;
///   the handle registry gives them to the next loop in the same place, whose timer handles have
///   the same place bits, and that loop's slots start there (``inheritGenerations(_:)``);
/// - ``age(by:)``, for tests, only moves generations forward.
extension TimerQueues {
    /// Moves the generations of the table's slots past every one handed out, into
    /// ``inheritedGenerations`` (per chunk of slot indexes any loop of this place has made):
    /// for ``removeAll()``, when the loop closes, and ``giveSlotsBack()``.
    mutating func keepGenerations() {
        // A slot starts at its inherited generation and only moves on: it is never behind it. A
        // slot with a timer or a handle has handed its generation out; a free one has not.
        for index in slots.indices {
            let inUse = slots[index].isArmed || slots[index].handle != .none
            inheritedGenerations.raise(index, to: slots[index].generation + (inUse ? 1 : 0))
        }
    }

    /// Makes the slots this table makes start at `generations` (by index): a closed loop's
    /// ``inheritedGenerations``, given to a new loop, with no timer yet, that takes its place.
    mutating func inheritGenerations(_ generations: SlotGenerations) {
        assert(slots.isEmpty, "a loop inherits generations before its first timer")
        inheritedGenerations = generations
    }

    /// For tests of retirement: moves the generation of every slot made so far (and of those
    /// inherited) `reuses` further, as if each had held that many more timers, up to
    /// ``TimerID/generationLimit`` (retired). False, changing nothing, while a timer is armed or a
    /// C handle holds a slot: a live id or handle keeps its generation.
    mutating func age(by reuses: UInt32) -> Bool {
        guard count == 0 && heldCount == 0 else { return false }
        restartFromFirstSlot()
        func aged(_ generation: UInt32) -> UInt32 {
            UInt32(min(UInt64(generation) + UInt64(reuses), UInt64(TimerID.generationLimit)))
        }
        for index in slots.indices { slots[index].generation = aged(slots[index].generation) }
        inheritedGenerations.age(by: reuses)
        return true
    }
}
