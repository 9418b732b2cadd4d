/// Names one armed timer: its slot in the loop's timer table and the slot's generation when the
/// timer was armed. Once the timer ends, the slot's generation moves on, so a stale id names
/// nothing even after the slot is reused.
struct TimerID: Hashable, Sendable {
    let slot: UInt32
    let generation: UInt32

    init(slot: UInt32, generation: UInt32) {
        self.slot = slot
        self.generation = generation
    }

    /// The id as one number, for the C layer to keep without a reference to the loop.
    var packed: UInt64 { UInt64(slot) << 32 | UInt64(generation) }

    init(packed: UInt64) {
        self.init(slot: UInt32(truncatingIfNeeded: packed >> 32), generation: UInt32(truncatingIfNeeded: packed))
    }
}

/// One entry of the loop's timer table: a timer's next fire date, its grid and its action.
///
/// Slots live in one contiguous array and are reused, so arming a timer allocates nothing once
/// the table has grown to the number of timers in use. Read and written under the loop's lock.
struct TimerSlot {
    /// The armed timer's action (its third word by tag: ``StoredAction``); idle otherwise. First:
    /// its 17 bytes leave 7 of its last word to the small fields after it (Swift places a field
    /// at the size of the one before, not its stride), so that a slot is 40 bytes: with its heap
    /// entry (16), 56 bytes per armed timer.
    var action = StoredAction.idle
    /// ``isQueued``, ``isArmed``, ``isReferenced``, ``handle`` and ``missedTicks``, as bits.
    private var flags: UInt8 = Self.referencedBit
    /// The index of the timer's mode: 16 bits, so that the small fields fit beside the action
    /// (``TimerQueues/modeLimit``).
    var modeIndex: UInt16 = 0
    /// The timer's scheduling sequence: given when it is armed or reset, kept by the re-queue
    /// after each fire, so that ties fire in scheduling order on every tick. Entries of this slot
    /// with another sequence belong to an earlier timer (or to this one before a reset) and are
    /// stale; entries with this sequence but an earlier key are stale too, since a re-queue always
    /// moves the fire date forward.
    var sequence: UInt32 = 0
    /// Bumped when the timer ends, so that ids of the slot's earlier timers no longer match.
    var generation: UInt32
    /// The armed timer's interval and tolerance, as its entry in the table's
    /// ``TimerQueues/timings``; 0 for a one-shot without tolerance (a server's timeouts: most
    /// timers), which keeps them nowhere.
    var timing: UInt32 = 0
    /// The next fire date on the timer's grid (monotonic ns).
    var fireDate: Nanoseconds = 0

    private static let queuedBit: UInt8 = 1, armedBit: UInt8 = 2, referencedBit: UInt8 = 4
    private static let handleShift: UInt8 = 3, handleMask: UInt8 = 0b111 << 3
    private static let missedShift: UInt8 = 6, missedMask: UInt8 = 0b11 << 6

    @inline(__always)
    private mutating func set(_ bit: UInt8, _ on: Bool) { flags = on ? flags | bit : flags & ~bit }

    /// Whether the timer has entries in its mode's heaps (false while it is being fired).
    var isQueued: Bool {
        get { flags & Self.queuedBit != 0 }
        set { set(Self.queuedBit, newValue) }
    }
    /// Whether the slot holds an armed timer.
    var isArmed: Bool {
        get { flags & Self.armedBit != 0 }
        set { set(Self.armedBit, newValue) }
    }
    /// Whether the armed timer keeps a run until idle going (libuv's `uv_ref`); see
    /// TimerQueues+References.swift.
    var isReferenced: Bool {
        get { flags & Self.referencedBit != 0 }
        set { set(Self.referencedBit, newValue) }
    }
    /// Whether a C handle names the slot, and how (TimerQueues+Handles.swift).
    var handle: HandleState {
        get { HandleState(rawValue: (flags & Self.handleMask) >> Self.handleShift).unsafelyUnwrapped }
        set { flags = flags & ~Self.handleMask | newValue.rawValue << Self.handleShift }
    }
    var missedTicks: MissedTickPolicy {
        get {
            switch (flags & Self.missedMask) >> Self.missedShift {
            case 0: .skip
            case 1: .burst
            default: .delay
            }
        }
        set {
            let bits: UInt8 = switch newValue {
            case .skip: 0
            case .burst: 1
            case .delay: 2
            }
            flags = flags & ~Self.missedMask | bits << Self.missedShift
        }
    }

    init(generation: UInt32 = 1) { self.generation = generation }

    /// The ordinary lateness of a fire, which a ``MissedTickPolicy/delay`` timer does not count
    /// as late: its tolerance, but at least 5 ms (tokio's threshold for its `Delay`) or half the
    /// interval if that is less, so that a wake-up's own latency never moves the grid.
    static func lateAfter(interval: Nanoseconds, tolerance: Nanoseconds) -> Nanoseconds {
        max(tolerance, min(5_000_000, interval / 2))
    }

    /// Fires the timer at `now` (≥ ``fireDate``), whose `interval` (0: a one-shot) and
    /// `tolerance` are kept in its table: returns the fire date to report and the number of grid
    /// points skipped, and moves a repeating timer to its next fire date.
    ///
    /// With ``MissedTickPolicy/skip`` the reported fire date is the latest grid point not after
    /// `now`, so a late timer fires once and its grid never drifts (Apple's `Timer`). With
    /// ``MissedTickPolicy/delay`` a fire more than ``lateAfter(interval:tolerance:)`` after its fire date, or an
    /// interval or more after it, restarts the grid one interval after `now`; any other keeps the
    /// grid.
    mutating func advance(now: Nanoseconds, interval: Nanoseconds,
                          tolerance: Nanoseconds) -> (fireDate: Nanoseconds, skipped: UInt64) {
        let due = fireDate
        guard interval > 0 else { return (due, 0) }
        switch missedTicks {
        case .skip:
            let skipped = (now - due) / interval
            let reported = due.saturatingAdd(skipped.saturatingMultiply(interval))
            fireDate = reported.saturatingAdd(interval)
            return (reported, skipped)
        case .burst:
            fireDate = due.saturatingAdd(interval)
            return (due, 0)
        case .delay:
            // Late, or so late that the next grid point has passed too: a new grid from now.
            let onGrid = due.saturatingAdd(interval)
            let late = Self.lateAfter(interval: interval, tolerance: tolerance)
            fireDate = now - due > late || onGrid <= now ? now.saturatingAdd(interval) : onGrid
            return (due, 0)
        }
    }
}
