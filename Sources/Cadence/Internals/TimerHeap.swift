/// A 4-ary min-heap of timers ordered by fire date, then scheduling order.
///
/// Each node records its index, so removal is O(log n) without a search. A 4-ary heap does fewer
/// levels of work per insert and removal than a binary one (measured in the peers' LIMITS notes).
struct TimerHeap {
    private(set) var nodes: [TimerNode] = []

    var isEmpty: Bool { nodes.isEmpty }
    var count: Int { nodes.count }
    var first: TimerNode? { nodes.first }

    mutating func insert(_ node: TimerNode) {
        node.heapIndex = nodes.count
        nodes.append(node)
        siftUp(node.heapIndex)
    }

    /// Removes `node`, which must be in this heap.
    mutating func remove(_ node: TimerNode) {
        let index = node.heapIndex
        node.heapIndex = -1
        let last = nodes.removeLast()
        guard index < nodes.count else { return }
        nodes[index] = last
        last.heapIndex = index
        if index > 0 && last.precedes(nodes[(index - 1) / 4]) {
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
        for node in all { node.heapIndex = -1 }
        return all
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        let node = nodes[index]
        while index > 0 {
            let parent = (index - 1) / 4
            guard node.precedes(nodes[parent]) else { break }
            nodes[index] = nodes[parent]
            nodes[index].heapIndex = index
            index = parent
        }
        nodes[index] = node
        node.heapIndex = index
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        let node = nodes[index]
        let count = nodes.count
        while true {
            let firstChild = 4 * index + 1
            guard firstChild < count else { break }
            var best = firstChild
            for child in (firstChild + 1)..<min(firstChild + 4, count) where nodes[child].precedes(nodes[best]) {
                best = child
            }
            guard nodes[best].precedes(node) else { break }
            nodes[index] = nodes[best]
            nodes[index].heapIndex = index
            index = best
        }
        nodes[index] = node
        node.heapIndex = index
    }
}
