@testable import Cadence
import Testing

/// The radix sort of a pass's due entries against the comparison order it replaces, and the heap
/// sweep that takes them.
@Suite struct FireOrderTests {
    /// Keys drawn from spans of 0 (all equal) to the whole 64 bits, many of them equal, and
    /// sequences that cross the 32-bit wrap; sorted as a small batch, and as a large one (split by
    /// the top digit first: `splitMinimum` 2).
    @Test(arguments: [UInt64(0), 1, 3, 2_000_000, 1 << 40, .max], [Int.max, 2])
    func sortsAsPrecedesOrders(span: UInt64, splitMinimum: Int) {
        var rng = SplitMix(seed: span)
        let base: UInt64 = span == .max ? 0 : 1_000_000_000
        var entries = ContiguousArray<TimerHeapEntry>()
        for index in 0..<3_000 {
            let key = span == 0 ? base : base &+ rng.next() % span
            entries.append(TimerHeapEntry(key: key, sequence: 0xFFFF_F000 &+ UInt32(index), slot: UInt32(index)))
        }
        entries.shuffle(using: &rng)
        let expected = entries.sorted { $0.precedes($1) }.map(\.slot)
        FireOrder.sort(&entries, splitMinimum: splitMinimum)
        #expect(entries.count == expected.count)
        #expect(entries.indices.first { entries[$0].slot != expected[$0] } == nil)
    }

    /// Whatever number of radix passes the keys take (one, two, three, four), split first or not,
    /// the entries end in the buffer they came in, which a heap gets back (TimerHeap.takeKeys).
    /// Spans of 2¹², 2²³ and 2³⁴ make keys that differ in one bit more than whole digits, where a
    /// count of the digits below the top one is off by one if it is wrong.
    @Test(arguments: [10, 12, 20, 23, 30, 34, 40].map { UInt64(1) << $0 }, [Int.max, 2])
    func sortsInTheEntriesOwnBuffer(span: UInt64, splitMinimum: Int) {
        var rng = SplitMix(seed: span)
        var entries = ContiguousArray<TimerHeapEntry>()
        entries.reserveCapacity(5_000)
        for index in 0..<3_000 {
            entries.append(TimerHeapEntry(key: rng.next() % span, sequence: UInt32(index), slot: UInt32(index)))
        }
        let buffer = entries.withUnsafeBufferPointer { $0.baseAddress }
        let expected = entries.sorted { $0.precedes($1) }.map(\.slot)
        FireOrder.sort(&entries, splitMinimum: splitMinimum)
        #expect(entries.map(\.slot) == expected)
        #expect(entries.withUnsafeBufferPointer { $0.baseAddress } == buffer)
    }

    @Test func sortsNothingAndOne() {
        var none = ContiguousArray<TimerHeapEntry>()
        FireOrder.sort(&none)
        #expect(none.isEmpty)
        var one: ContiguousArray = [TimerHeapEntry(key: 5, sequence: 1, slot: 9)]
        FireOrder.sort(&one)
        #expect(one.map(\.slot) == [9])
    }

    /// `countKeys` and `removeKeys` take exactly the entries at or before the limit, and what
    /// stays is still a heap (pops come out in order).
    @Test(arguments: [1, 2, 3])
    func theSweepTakesTheDueEntriesAndLeavesAHeap(seed: UInt64) {
        var rng = SplitMix(seed: seed)
        var heap = TimerHeap()
        var all: [TimerHeapEntry] = []
        for index in 0..<2_000 {
            let entry = TimerHeapEntry(key: rng.next() % 1_000, sequence: UInt32(index), slot: UInt32(index))
            heap.insert(entry)
            all.append(entry)
        }
        heap.staleCount = 7
        for limit: UInt64 in [0, 10, 500, 999, 1_000] {
            var copy = heap
            let due = all.filter { $0.key <= limit }
            #expect(copy.countKeys(notAfter: limit, upTo: .max) == due.count)
            #expect(copy.countKeys(notAfter: limit, upTo: 100) == min(due.count, 100))
            var taken = ContiguousArray<TimerHeapEntry>()
            copy.removeKeys(notAfter: limit, into: &taken)
            #expect(Set(taken.map(\.slot)) == Set(due.map(\.slot)))
            #expect(copy.staleCount == 7)
            var rest: [UInt32] = []
            while let top = copy.first {
                rest.append(top.slot)
                copy.removeFirst()
            }
            #expect(rest == all.filter { $0.key > limit }.sorted { $0.precedes($1) }.map(\.slot))
        }
    }

    /// `takeKeys` takes the same entries as `removeKeys`, in the heap's own buffer, and leaves
    /// the rest a heap; `adoptBuffer` gives the buffer back with the heap's entries in it.
    @Test(arguments: [1, 2, 3])
    func takingTheDueEntriesHandsTheBufferOverAndBack(seed: UInt64) {
        var rng = SplitMix(seed: seed)
        var all: [TimerHeapEntry] = []
        for index in 0..<2_000 {
            all.append(TimerHeapEntry(key: rng.next() % 1_000, sequence: UInt32(index), slot: UInt32(index)))
        }
        for limit: UInt64 in [10, 500, 1_000] {  // some due: a pass takes at least 256
            var copy = TimerHeap()
            copy.rebuild(from: {
                var entries = ContiguousArray<TimerHeapEntry>()
                entries.reserveCapacity(3_000)  // a buffer bigger than any the heap makes afresh
                entries.append(contentsOf: all)
                return entries
            }())
            let buffer = copy.entries.withUnsafeBufferPointer { $0.baseAddress }
            var taken = copy.takeKeys(notAfter: limit)
            #expect(taken.withUnsafeBufferPointer { $0.baseAddress } == buffer)
            #expect(Set(taken.map(\.slot)) == Set(all.filter { $0.key <= limit }.map(\.slot)))
            copy.adoptBuffer(&taken)
            #expect(taken.isEmpty)
            #expect(copy.entries.withUnsafeBufferPointer { $0.baseAddress } == buffer)
            var rest: [UInt32] = []
            while let top = copy.first {
                rest.append(top.slot)
                copy.removeFirst()
            }
            #expect(rest == all.filter { $0.key > limit }.sorted { $0.precedes($1) }.map(\.slot))
        }
    }
}
