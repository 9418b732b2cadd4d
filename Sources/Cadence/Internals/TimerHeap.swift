/// Which of a timer's two heap positions a ``TimerHeap`` keeps up to date.
protocol HeapPosition {
    static func get(_ slot: TimerSlot) -> Int32
    static func set(_ index: Int32, in slot: inout TimerSlot)
}

/// The heap of timers by fire date.
enum FireDatePosition: HeapPosition {
    @inline(__always) static func get(_ slot: TimerSlot) -> Int32 { slot.heapIndex }
    @inline(__always) static func set(_ index: Int32, in slot: inout TimerSlot) { slot.heapIndex = index }
}

/// The heap of timers by the end of their tolerance window (fire date + tolerance).
enum WindowPosition: HeapPosition {
    @inline(__always) static func get(_ slot: TimerSlot) -> Int32 { slot.windowIndex }
    @inline(__always) static func set(_ index: Int32, in slot: inout TimerSlot) { slot.windowIndex = index }
}

/// A heap entry: the key, the scheduling sequence that breaks ties, and the timer's slot.
struct TimerHeapEntry {
    var key: Nanoseconds
    var sequence: UInt64
    var slot: UInt32

    @inline(__always) func precedes(_ other: TimerHeapEntry) -> Bool {
        key != other.key ? key < other.key : sequence < other.sequence
    }
}

/// A 4-ary min-heap of timer slots, ordered by a key, ties by scheduling sequence.
///
/// Entries keep their key and sequence inline, so sifting compares without touching the slots,
/// and name their timer by slot number, so nothing is reference counted. Each slot records its
/// index here, so removal is O(log n) without a search. A 4-ary heap does fewer levels of work
/// per insert and removal than a binary one (measured in the peers' LIMITS notes).
struct TimerHeap<Position: HeapPosition> {
    typealias Entry = TimerHeapEntry

    private(set) var entries: ContiguousArray<Entry> = []

    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func insert(_ entry: Entry, slots: inout ContiguousArray<TimerSlot>) {
        entries.append(entry)
        siftUp(entries.count - 1, slots: &slots)
    }

    /// Removes the entry of `slot`, which must be in this heap.
    mutating func remove(_ slot: UInt32, slots: inout ContiguousArray<TimerSlot>) {
        let index = Int(Position.get(slots[Int(slot)]))
        Position.set(-1, in: &slots[Int(slot)])
        let last = entries.removeLast()
        guard index < entries.count else { return }
        entries[index] = last
        if index > 0 && last.precedes(entries[(index - 1) / 4]) {
            siftUp(index, slots: &slots)
        } else {
            siftDown(index, slots: &slots)
        }
    }

    /// Empties the heap, returning the slots it held.
    mutating func removeAll(slots: inout ContiguousArray<TimerSlot>) -> [UInt32] {
        let all = entries.map(\.slot)
        for slot in all { Position.set(-1, in: &slots[Int(slot)]) }
        entries.removeAll()
        return all
    }

    /// The latest key not after `limit` among the timers here (visiting only those whose key is
    /// ≤ `limit`, which the heap order makes a pruned walk).
    func latestKey(notAfter limit: Nanoseconds, from index: Int = 0) -> Nanoseconds? {
        guard index < entries.count, entries[index].key <= limit else { return nil }
        var latest = entries[index].key
        let firstChild = 4 * index + 1
        for child in firstChild..<max(firstChild, min(firstChild + 4, entries.count)) {
            if let found = latestKey(notAfter: limit, from: child) { latest = max(latest, found) }
        }
        return latest
    }

    private mutating func siftUp(_ start: Int, slots: inout ContiguousArray<TimerSlot>) {
        var index = start
        let entry = entries[index]
        while index > 0 {
            let parent = (index - 1) / 4
            guard entry.precedes(entries[parent]) else { break }
            move(parent, to: index, slots: &slots)
            index = parent
        }
        place(entry, at: index, slots: &slots)
    }

    private mutating func siftDown(_ start: Int, slots: inout ContiguousArray<TimerSlot>) {
        var index = start
        let entry = entries[index]
        let count = entries.count
        while true {
            let firstChild = 4 * index + 1
            guard firstChild < count else { break }
            var best = firstChild
            for child in (firstChild + 1)..<min(firstChild + 4, count) where entries[child].precedes(entries[best]) {
                best = child
            }
            guard entries[best].precedes(entry) else { break }
            move(best, to: index, slots: &slots)
            index = best
        }
        place(entry, at: index, slots: &slots)
    }

    @inline(__always)
    private mutating func move(_ from: Int, to index: Int, slots: inout ContiguousArray<TimerSlot>) {
        entries[index] = entries[from]
        Position.set(Int32(truncatingIfNeeded: index), in: &slots[Int(entries[index].slot)])
    }

    @inline(__always)
    private mutating func place(_ entry: Entry, at index: Int, slots: inout ContiguousArray<TimerSlot>) {
        entries[index] = entry
        Position.set(Int32(truncatingIfNeeded: index), in: &slots[Int(entry.slot)])
    }
}
