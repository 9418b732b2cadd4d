/// How a ``TimerHeap`` orders timers, and where each timer keeps its position in that heap.
protocol TimerOrder {
    /// The primary key; ties go to the lower scheduling sequence.
    static func key(of node: TimerNode) -> Nanoseconds
    static func index(of node: TimerNode) -> Int
    static func setIndex(_ index: Int, of node: TimerNode)
}

/// By fire date, ties in scheduling order: the order timers fire in.
enum ByFireDate: TimerOrder {
    @inline(__always) static func key(of node: TimerNode) -> Nanoseconds { node.fireDate }
    @inline(__always) static func index(of node: TimerNode) -> Int { node.heapIndex }
    @inline(__always) static func setIndex(_ index: Int, of node: TimerNode) { node.heapIndex = index }
}

/// By the end of the tolerance window (fire date + tolerance): the first one bounds the next wake-up.
enum ByLatestFireDate: TimerOrder {
    @inline(__always) static func key(of node: TimerNode) -> Nanoseconds { node.latestFireDate }
    @inline(__always) static func index(of node: TimerNode) -> Int { node.latestIndex }
    @inline(__always) static func setIndex(_ index: Int, of node: TimerNode) { node.latestIndex = index }
}

/// A 4-ary min-heap of timers.
///
/// Each entry keeps its key and sequence inline, so sifting compares without following pointers,
/// and holds its timer unmanaged (retained once on insert, released on removal), so sifting does
/// no reference counting. Each timer records its index, so removal is O(log n) without a search. A
/// 4-ary heap does fewer levels of work per insert and removal than a binary one (measured in the
/// peers' LIMITS notes).
struct TimerHeap<Order: TimerOrder> {
    private struct Entry {
        var key: Nanoseconds
        var sequence: UInt64
        var node: Unmanaged<TimerNode>

        @inline(__always) func precedes(_ other: Entry) -> Bool {
            key != other.key ? key < other.key : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var first: TimerNode? { entries.first?.node.takeUnretainedValue() }

    mutating func insert(_ node: TimerNode) {
        entries.append(Entry(key: Order.key(of: node), sequence: node.sequence, node: .passRetained(node)))
        siftUp(entries.count - 1)
    }

    /// Removes `node`, which must be in this heap.
    mutating func remove(_ node: TimerNode) {
        let index = Order.index(of: node)
        Order.setIndex(-1, of: node)
        let last = entries.removeLast()
        if index < entries.count {
            entries[index] = last
            if index > 0 && last.precedes(entries[(index - 1) / 4]) {
                siftUp(index)
            } else {
                siftDown(index)
            }
        }
        Unmanaged.passUnretained(node).release()
    }

    mutating func popFirst() -> TimerNode? {
        guard let top = first else { return nil }
        remove(top)
        return top
    }

    mutating func removeAll() -> [TimerNode] {
        let all = entries.map { $0.node.takeRetainedValue() }
        entries.removeAll()
        for node in all { Order.setIndex(-1, of: node) }
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

    private mutating func siftUp(_ start: Int) {
        var index = start
        let entry = entries[index]
        while index > 0 {
            let parent = (index - 1) / 4
            guard entry.precedes(entries[parent]) else { break }
            move(parent, to: index)
            index = parent
        }
        place(entry, at: index)
    }

    private mutating func siftDown(_ start: Int) {
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
            move(best, to: index)
            index = best
        }
        place(entry, at: index)
    }

    @inline(__always) private mutating func move(_ from: Int, to index: Int) {
        entries[index] = entries[from]
        entries[index].node._withUnsafeGuaranteedRef { Order.setIndex(index, of: $0) }
    }

    @inline(__always) private mutating func place(_ entry: Entry, at index: Int) {
        entries[index] = entry
        entry.node._withUnsafeGuaranteedRef { Order.setIndex(index, of: $0) }
    }
}
