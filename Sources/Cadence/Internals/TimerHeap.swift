/// A heap entry, 16 bytes so that four siblings share a cache line: the key, the low 32 bits of
/// the timer's scheduling sequence (given when it was armed or reset, kept by every re-queue after
/// a fire; it breaks ties and, with the key, tells a current entry from a stale one), and the
/// timer's slot.
struct TimerHeapEntry {
    var key: Nanoseconds
    var sequence: UInt32
    var slot: UInt32

    /// Key order; equal keys in scheduling order, compared modulo 2³² (right for timers armed or
    /// reset fewer than 2³¹ schedulings apart; beyond that, two such timers due at the same
    /// nanosecond fire in the reverse order).
    @inline(__always) func precedes(_ other: TimerHeapEntry) -> Bool {
        key != other.key ? key < other.key : Int32(bitPattern: sequence &- other.sequence) < 0
    }
}

/// A 4-ary min-heap of timer entries, ordered by key, ties by sequence.
///
/// Cancelling a timer does not touch the heap: its entry goes stale (``TimerQueues`` can tell)
/// and is dropped when it reaches the top, or when stale entries make up three quarters of the
/// heap and it is rebuilt, which keeps its entries within four times the live ones at O(1)
/// amortized cost per cancel (asyncio does the same, at half). So entries never move in response
/// to a cancel, and sifting touches nothing but this array: no back-pointers into the timers to
/// update. The array keeps the capacity it grew to (a rebuild filters it in place), so arming as
/// many timers again allocates nothing; the memory of a large one that empties, or that a rebuild
/// leaves three quarters empty, goes back to the system all the same (``FreedMemory``).
/// A 4-ary heap does fewer levels of work per insert and removal than a binary one (measured in
/// the peers' LIMITS notes).
struct TimerHeap {
    /// The entries a heap reserves room for once it is large (``FreedMemory/grow(_:limit:)``): a
    /// loop's most timers, twice over for stale entries (beyond it, it doubles).
    static let entryLimit = 2 * TimerID.handleSlotLimit

    private(set) var entries: ContiguousArray<TimerHeapEntry> = []
    /// How many entries are known to be stale (kept by the owner, who can tell them).
    var staleCount = 0
    /// The next entry the owner's sweep for stale entries looks at, going towards the root
    /// (``TimerQueues/noteStale(_:)``); -1 when it starts again from the last entry.
    var sweepIndex = -1

    var count: Int { entries.count }
    var first: TimerHeapEntry? { entries.first }

    @inline(__always)
    mutating func insert(_ entry: TimerHeapEntry) {
        FreedMemory.append(entry, to: &entries, limit: Self.entryLimit)
        siftUp(entries.count - 1)
    }

    /// Whether an entry other than the first has a key not after `limit` (the first's children
    /// hold the least of the others): `countKeys(notAfter: limit, upTo: 2) == 2` for a wake-up's
    /// pass, without its recursive walk (through it, an idle wake-up ran 103 instructions and
    /// touched 5 cache lines more: Benchmarks/profile.py).
    @inline(__always)
    func hasSecond(notAfter limit: Nanoseconds) -> Bool {
        var child = 1
        while child < min(5, entries.count) {
            if entries[child].key <= limit { return true }
            child += 1
        }
        return false
    }

    /// Removes the first entry. Floyd's variant: the hole at the root moves down along the
    /// smallest children to a leaf, then the last entry fills it and sifts up. The last entry comes
    /// from the bottom and nearly always belongs there, so this saves the comparison with it at
    /// every level of a plain sift-down.
    mutating func removeFirst() {
        let last = entries.removeLast()
        guard !entries.isEmpty else { return }
        entries.withUnsafeMutableBufferPointer { heap in
            var hole = 0
            while true {
                let firstChild = 4 * hole + 1
                guard firstChild < heap.count else { break }
                let best = Self.smallest(in: heap, from: firstChild)
                heap[hole] = heap[best]
                hole = best
            }
            Self.siftUp(last, from: hole, in: heap)
        }
    }

    /// The count at which the pages past the entries last went back (``releasePagesOnceShrunk()``);
    /// `Int.max` when none have since the heap last grew a ``releaseStep`` past that, or since its
    /// buffer changed hands (``takeKeys(notAfter:)``, ``adoptBuffer(_:)``).
    private var releasedAt = Int.max

    /// Entries in a quarter megabyte: what a sweep gives back at a time (about 50 µs here).
    private static let releaseStep = FreedMemory.threshold / 4 / MemoryLayout<TimerHeapEntry>.stride

    /// Gives the pages past the entries back (``FreedMemory``) as a sweep shrinks the heap: those
    /// written past its end since the last time (few: a sweep calls this at every step), then
    /// again each time it has shrunk by another ``releaseStep``. So a heap emptied a few entries
    /// at a time keeps at most that much memory it does not use, and no sweep gives more back at
    /// once. (Given back at each halving once the heap was a quarter of its buffer, a sweep of 10⁶
    /// cancelled timers made one `madvise` of 8 MB, 0.9 ms inside one cancel, and one of 10⁷ one
    /// of 25 MB, 3.2 ms: most of the p99.9 of `make bench`'s stop batches, 1.1-1.3 µs.)
    mutating func releasePagesOnceShrunk() {
        let count = entries.count
        if releasedAt != .max && count > releasedAt + Self.releaseStep { releasedAt = .max }
        if releasedAt == .max {
            releasedAt = count
            FreedMemory.releasePages(pastEndOf: &entries)  // what lies past: pages written since
            return
        }
        guard count + Self.releaseStep <= releasedAt else { return }
        FreedMemory.releasePages(of: &entries, from: count, upTo: releasedAt)
        releasedAt = count
    }

    /// Removes the entry at `index`: the last entry takes its place and moves up or down to where
    /// heap order puts it. O(log n); O(1) for most leaves.
    mutating func remove(at index: Int) {
        let last = entries.removeLast()
        guard index < entries.count else { return }  // it was the last
        entries[index] = last
        siftDown(index)
        siftUp(index)  // a no-op if it moved down: its place then holds a child, after its parent
    }

    /// Moves the entries out, leaving the heap empty, so that the caller can edit them in their
    /// own buffer and hand them back to ``rebuild(from:)``.
    mutating func takeEntries() -> ContiguousArray<TimerHeapEntry> {
        var taken: ContiguousArray<TimerHeapEntry> = []
        swap(&taken, &entries)
        staleCount = 0
        return taken
    }

    /// Replaces the entries with `live` (the entries that are not stale) in heap order; O(n)
    /// (Floyd's construction: sift down every parent, last first).
    /// Once live entries fill a quarter of the buffer or less, the memory past them goes back to
    /// the system (``FreedMemory/releasePages(pastEndOf:)``): O(n) as
    /// the rebuild is.
    mutating func rebuild(from live: consuming ContiguousArray<TimerHeapEntry>) {
        entries = consume live  // not copied: heap order is then restored in this very buffer
        staleCount = 0
        if entries.count * 4 <= entries.capacity { FreedMemory.releasePages(pastEndOf: &entries) }
        heapify()
    }

    /// Puts the entries in heap order; O(n).
    private mutating func heapify() {
        guard entries.count > 1 else { return }
        for index in stride(from: (entries.count - 2) / 4, through: 0, by: -1) { siftDown(index) }
    }

    /// Empties the heap; its buffer stays, with its pages (``releaseMemory()`` gives them back).
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        staleCount = 0
    }

    /// Gives the pages of the buffer past the entries back to the system, when they are many
    /// (``FreedMemory/releasePages(pastEndOf:)``); the buffer stays.
    mutating func releaseMemory() {
        FreedMemory.releasePages(pastEndOf: &entries)
    }

    /// How many entries have a key ≤ `limit`, counting no further than `cap`: a walk pruned by the
    /// heap order, so it visits those entries and their children only.
    func countKeys(notAfter limit: Nanoseconds, upTo cap: Int) -> Int {
        var count = 0
        countKeys(notAfter: limit, from: 0, upTo: cap, into: &count)
        return count
    }

    private func countKeys(notAfter limit: Nanoseconds, from index: Int, upTo cap: Int, into count: inout Int) {
        guard count < cap, index < entries.count, entries[index].key <= limit else { return }
        count += 1
        let firstChild = 4 * index + 1
        for child in firstChild..<max(firstChild, min(firstChild + 4, entries.count)) {
            countKeys(notAfter: limit, from: child, upTo: cap, into: &count)
        }
    }

    /// Takes the entries with a key ≤ `limit` out in the heap's own buffer, which the caller
    /// gets, and keeps the rest in a new one, in heap order: O(n), for when most of the heap is due
    /// at once. The buffer changes hands rather than its entries being copied out: a fresh one
    /// would have its pages faulted in, at 10⁷ entries about 8 ns per entry (more than the copy).
    /// The new one has room for as many entries as the heap had (``standInCapacity(for:)``), so
    /// that the taken timers that come back while the caller holds the buffer (repeating ones, at
    /// their next fire dates) do not move it: a move copies the heap inside one insert (at an
    /// exact size, the first re-queue copied the rest into a buffer of ``entryLimit``). Its room
    /// past what is written costs address space, not memory.
    /// ``staleCount`` is left as it was: the caller tells stale entries among those taken.
    mutating func takeKeys(notAfter limit: Nanoseconds) -> ContiguousArray<TimerHeapEntry> {
        var due = 0
        entries.withUnsafeMutableBufferPointer { heap in
            for index in heap.indices where heap[index].key <= limit {
                heap.swapAt(index, due)
                due &+= 1
            }
        }
        var taken = ContiguousArray<TimerHeapEntry>()
        taken.reserveCapacity(Self.standInCapacity(for: entries.count))
        taken.append(contentsOf: entries[due...])
        swap(&taken, &entries)
        taken.removeLast(taken.count - due)
        releasedAt = .max  // a mark in the buffer that left: the new one has none
        heapify()
        return taken
    }

    /// `index` if it names a leaf (past the inner entries of a 4-ary heap), else the last entry:
    /// where a sweep of leaves goes on from (-1 for an empty heap).
    @inline(__always)
    func leafOrLast(_ index: Int) -> Int {
        index <= (count - 2) / 4 || index >= count ? count - 1 : index
    }

    /// The room of the buffer that stands in for a heap of `count` entries while a pass holds its
    /// own (``takeKeys(notAfter:)``): all of them, so that the timers that come back do not move
    /// it; once that is many, the most a heap can hold (``FreedMemory/grow(_:limit:)``), which the
    /// allocator maps by itself: freeing it unmaps what was written and nothing else, where a
    /// buffer of exactly `count` could come from the allocator's heap, whose top it trims when it
    /// is freed (a `brk` that unmapped 16 MB in 1.4 ms at the end of a pass, at 10⁶ timers).
    private static func standInCapacity(for count: Int) -> Int {
        count >= FreedMemory.reservedAfter && FreedMemory.reservesAddressSpace ? max(count, entryLimit) : count
    }

    /// Moves the entries into `buffer`, emptied first, and keeps it, if it can hold them: a
    /// buffer that ``takeKeys(notAfter:)`` took, handed back, whose pages are in memory (the
    /// stand-in's are only where it was written). `buffer` is left empty either way.
    mutating func adoptBuffer(_ buffer: inout ContiguousArray<TimerHeapEntry>) {
        guard buffer.capacity >= entries.count, buffer.capacity > 0 else {
            buffer = []
            return
        }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: entries)
        swap(&buffer, &entries)  // heap order kept: the same entries in the same order
        buffer = []
        // The mark was in the other buffer, and the taken entries wrote pages past these: the
        // next shrink gives back all that lies past the entries (releasePagesOnceShrunk).
        releasedAt = .max
    }

    /// Moves every entry with a key ≤ `limit` to the end of `due`, in no particular order, and
    /// restores heap order among the rest: O(n), one pass over the entries and one heap
    /// construction, for when most of the heap is due at once. ``staleCount`` is left as it was:
    /// the caller tells stale entries among those moved when it takes them.
    mutating func removeKeys(notAfter limit: Nanoseconds, into due: inout ContiguousArray<TimerHeapEntry>) {
        var kept = 0
        entries.withUnsafeMutableBufferPointer { heap in
            for index in heap.indices {
                let entry = heap[index]
                if entry.key <= limit {
                    due.append(entry)
                } else {
                    heap[kept] = entry
                    kept += 1
                }
            }
        }
        entries.removeLast(entries.count - kept)
        heapify()
    }

    private mutating func siftUp(_ start: Int) {
        entries.withUnsafeMutableBufferPointer { heap in Self.siftUp(heap[start], from: start, in: heap) }
    }

    private mutating func siftDown(_ start: Int) {
        entries.withUnsafeMutableBufferPointer { heap in
            var index = start
            let entry = heap[index]
            while true {
                let firstChild = 4 * index + 1
                guard firstChild < heap.count else { break }
                let best = Self.smallest(in: heap, from: firstChild)
                guard heap[best].precedes(entry) else { break }
                heap[index] = heap[best]
                index = best
            }
            heap[index] = entry
        }
    }

    /// Places `entry` at `start` or above, moving larger parents down.
    @inline(__always)
    private static func siftUp(_ entry: TimerHeapEntry, from start: Int, in heap: UnsafeMutableBufferPointer<TimerHeapEntry>) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 4
            guard entry.precedes(heap[parent]) else { break }
            heap[index] = heap[parent]
            index = parent
        }
        heap[index] = entry
    }

    /// The index of the smallest of the (up to four) siblings starting at `firstChild`.
    @inline(__always)
    private static func smallest(in heap: UnsafeMutableBufferPointer<TimerHeapEntry>, from firstChild: Int) -> Int {
        var best = firstChild
        var child = firstChild + 1
        let end = min(firstChild + 4, heap.count)
        while child < end {
            if heap[child].precedes(heap[best]) { best = child }
            child += 1
        }
        return best
    }
}
