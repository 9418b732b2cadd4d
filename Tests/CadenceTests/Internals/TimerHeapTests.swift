@testable import Cadence
import Testing

/// The 4-ary heap against a sorted reference, over random inserts and removals.
@Suite struct TimerHeapTests {
    @Test(arguments: [1, 2, 3, 4, 5])
    func randomOperationsMatchASortedReference(seed: UInt64) {
        var rng = SplitMix(seed: seed)
        var heap = TimerHeap<FireDatePosition>()
        var slots = ContiguousArray<TimerSlot>()
        var live: [TimerHeapEntry] = []
        var sequence: UInt64 = 0
        for _ in 0..<2_000 {
            switch rng.next() % 3 {
            case 0, 1:
                let entry = TimerHeapEntry(key: rng.next() % 50, sequence: sequence, slot: UInt32(slots.count))
                sequence += 1
                slots.append(TimerSlot())
                heap.insert(entry, slots: &slots)
                live.append(entry)
            default:
                guard !live.isEmpty else { continue }
                let entry = live.remove(at: Int(rng.next() % UInt64(live.count)))
                heap.remove(entry.slot, slots: &slots)
                #expect(slots[Int(entry.slot)].heapIndex == -1)
            }
            #expect(heap.count == live.count)
            // Every queued slot knows where it is.
            for (index, entry) in heap.entries.enumerated() {
                #expect(slots[Int(entry.slot)].heapIndex == Int32(index))
            }
        }
        let expected = live.sorted { $0.precedes($1) }.map(\.sequence)
        var popped: [UInt64] = []
        while let first = heap.first {
            popped.append(first.sequence)
            heap.remove(first.slot, slots: &slots)
        }
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
