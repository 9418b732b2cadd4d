/// How a ``TimerHeap`` orders timers, and where each timer keeps its position in that heap.
protocol TimerOrder {
    static func precedes(_ a: TimerNode, _ b: TimerNode) -> Bool
    static func index(of node: TimerNode) -> Int
    static func setIndex(_ index: Int, of node: TimerNode)
}

/// By fire date, ties in scheduling order: the order timers fire in.
enum ByFireDate: TimerOrder {
    @inline(__always) static func precedes(_ a: TimerNode, _ b: TimerNode) -> Bool { a.precedes(b) }
    @inline(__always) static func index(of node: TimerNode) -> Int { node.heapIndex }
    @inline(__always) static func setIndex(_ index: Int, of node: TimerNode) { node.heapIndex = index }
}

/// By the end of the tolerance window (fire date + tolerance): the first one bounds the next wake-up.
enum ByLatestFireDate: TimerOrder {
    @inline(__always) static func precedes(_ a: TimerNode, _ b: TimerNode) -> Bool {
        a.latestFireDate != b.latestFireDate ? a.latestFireDate < b.latestFireDate : a.sequence < b.sequence
    }
    @inline(__always) static func index(of node: TimerNode) -> Int { node.latestIndex }
    @inline(__always) static func setIndex(_ index: Int, of node: TimerNode) { node.latestIndex = index }
}

/// A 4-ary min-heap of timers.
///
/// Each node records its index, so removal is O(log n) without a search. A 4-ary heap does fewer
/// levels of work per insert and removal than a binary one (measured in the peers' LIMITS notes).
struct TimerHeap<Order: TimerOrder> {
    private(set) var nodes: [TimerNode] = []

    var isEmpty: Bool { nodes.isEmpty }
    var count: Int { nodes.count }
    var first: TimerNode? { nodes.first }

    mutating func insert(_ node: TimerNode) {
        Order.setIndex(nodes.count, of: node)
        nodes.append(node)
        siftUp(nodes.count - 1)
    }

    /// Removes `node`, which must be in this heap.
    mutating func remove(_ node: TimerNode) {
        let index = Order.index(of: node)
        Order.setIndex(-1, of: node)
        let last = nodes.removeLast()
        guard index < nodes.count else { return }
        nodes[index] = last
        Order.setIndex(index, of: last)
        if index > 0 && Order.precedes(last, nodes[(index - 1) / 4]) {
            siftUp(index)
        } else {
            siftDown(index)
        }
    }

    mutating func popFirst() -> TimerNode? {
        guard let top = nodes.first else { return nil }
        remove(top)
        return top
    }

    mutating func removeAll() -> [TimerNode] {
        let all = nodes
        nodes.removeAll()
        for node in all { Order.setIndex(-1, of: node) }
        return all
    }

    /// The latest fire date not after `limit` among the timers here (visiting only those whose fire
    /// date is ≤ `limit`, which the heap order makes a pruned walk when ordered by fire date).
    func latestFireDate(notAfter limit: Nanoseconds, from index: Int = 0) -> Nanoseconds? {
        guard index < nodes.count, nodes[index].fireDate <= limit else { return nil }
        var latest = nodes[index].fireDate
        let firstChild = 4 * index + 1
        for child in firstChild..<max(firstChild, min(firstChild + 4, nodes.count)) {
            if let found = latestFireDate(notAfter: limit, from: child) { latest = max(latest, found) }
        }
        return latest
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        let node = nodes[index]
        while index > 0 {
            let parent = (index - 1) / 4
            guard Order.precedes(node, nodes[parent]) else { break }
            nodes[index] = nodes[parent]
            Order.setIndex(index, of: nodes[index])
            index = parent
        }
        nodes[index] = node
        Order.setIndex(index, of: node)
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        let node = nodes[index]
        let count = nodes.count
        while true {
            let firstChild = 4 * index + 1
            guard firstChild < count else { break }
            var best = firstChild
            for child in (firstChild + 1)..<min(firstChild + 4, count) where Order.precedes(nodes[child], nodes[best]) {
                best = child
            }
            guard Order.precedes(nodes[best], node) else { break }
            nodes[index] = nodes[best]
            Order.setIndex(index, of: nodes[index])
            index = best
        }
        nodes[index] = node
        Order.setIndex(index, of: node)
    }
}
