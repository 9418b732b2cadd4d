@testable import Cadence
import Testing

/// The 4-ary heap against a sorted reference, over random inserts and removals.
@Suite struct TimerHeapTests {
    @Test(arguments: [1, 2, 3, 4, 5])
    func randomOperationsMatchASortedReference(seed: UInt64) {
        var rng = SplitMix(seed: seed)
        var heap = TimerHeap<ByFireDate>()
        var live: [TimerNode] = []
        var sequence: UInt64 = 0
        for _ in 0..<2_000 {
            switch rng.next() % 3 {
            case 0, 1:
                let node = TimerNode(fireDate: rng.next() % 50, interval: 0, tolerance: 0, modeIndex: 0) { _ in }
                node.sequence = sequence
                sequence += 1
                heap.insert(node)
                live.append(node)
            default:
                guard !live.isEmpty else { continue }
                let node = live.remove(at: Int(rng.next() % UInt64(live.count)))
                heap.remove(node)
                #expect(node.heapIndex == -1)
            }
            #expect(heap.count == live.count)
        }
        let expected = live.sorted { $0.precedes($1) }.map(\.sequence)
        var popped: [UInt64] = []
        while let node = heap.popFirst() { popped.append(node.sequence) }
        #expect(popped == expected)
    }
}

/// A small deterministic generator, so failures can be replayed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
