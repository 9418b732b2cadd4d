@testable import Cadence
import Testing

/// The 4-ary heap against a sorted reference, over random inserts, entries going stale, pops and
/// rebuilds.
@Suite struct TimerHeapTests {
    @Test(arguments: [1, 2, 3, 4, 5])
    func randomOperationsMatchASortedReference(seed: UInt64) {
        var rng = SplitMix(seed: seed)
        var heap = TimerHeap()
        var live: [TimerHeapEntry] = []
        var stale = Set<UInt32>()
        var sequence: UInt32 = 0
        var popped: [UInt32] = []
        for _ in 0..<3_000 {
            switch rng.next() % 8 {
            case 0, 1, 2, 3:
                let entry = TimerHeapEntry(key: rng.next() % 50, sequence: sequence, slot: 0)
                sequence += 1
                heap.insert(entry)
                live.append(entry)
            case 4, 5:
                guard !live.isEmpty else { continue }
                stale.insert(live.remove(at: Int(rng.next() % UInt64(live.count))).sequence)
            case 6:
                // Pop the first live entry: it must be the smallest live one.
                while let top = heap.first, stale.contains(top.sequence) { heap.removeFirst() }
                guard let top = heap.first else { continue }
                heap.removeFirst()
                let smallest = live.min { $0.precedes($1) }!
                #expect(top.sequence == smallest.sequence)
                live.removeAll { $0.sequence == top.sequence }
                popped.append(top.sequence)
            default:
                heap.rebuild(from: ContiguousArray(heap.entries.filter { !stale.contains($0.sequence) }))
                #expect(heap.count == live.count)
            }
        }
        #expect(!popped.isEmpty)
        let expected = live.sorted { $0.precedes($1) }.map(\.sequence)
        var rest: [UInt32] = []
        while let top = heap.first {
            heap.removeFirst()
            if !stale.contains(top.sequence) { rest.append(top.sequence) }
        }
        #expect(rest == expected)
    }

    /// Sequences are 32 bits and wrap; equal keys still come out in enqueue order across the wrap.
    @Test func equalKeysKeepEnqueueOrderAcrossTheSequenceWrap() {
        var heap = TimerHeap()
        let sequences: [UInt32] = [0xFFFF_FFFE, 0xFFFF_FFFF, 0, 1]
        for sequence in sequences.reversed() { heap.insert(TimerHeapEntry(key: 7, sequence: sequence, slot: 0)) }
        var popped: [UInt32] = []
        while let top = heap.first {
            popped.append(top.sequence)
            heap.removeFirst()
        }
        #expect(popped == sequences)
    }
}

/// A small deterministic generator, so failures can be replayed.
struct SplitMix: RandomNumberGenerator {
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

/// Cancelling timers rebuilds their heap in its own buffer: the heap keeps the capacity it grew
/// to, so arming as many timers again allocates nothing.
@Suite struct TimerHeapRebuildTests {
    /// 1,000 one-shots in the default mode, their fire dates a permutation of 1,000 to 1,999.
    func armThousand(_ queues: inout TimerQueues) -> [TimerID] {
        (0..<1_000).map { index in
            queues.arm(fireDate: 1_000 + UInt64(index * 7919 % 1_000), interval: 0, tolerance: 0,
                       missedTicks: .skip, modeIndex: TimerQueues.defaultIndex, action: .idle)
        }
    }

    @Test func cancellingMostTimersKeepsTheHeapsCapacity() {
        var queues = TimerQueues()
        let ids = armThousand(&queues)
        let exact = queues.heap(TimerQueues.defaultIndex, .exact)
        let grown = queues.heaps[exact].entries.capacity
        var action = TimerAction.idle
        for id in ids.dropLast(10) { #expect(queues.disarm(id, releasing: &action)) }
        // Three quarters stale rebuilds the heap, more than once on the way down to 10 live
        // entries; under 33 stale entries nothing sweeps (TimerQueues.noteStale).
        #expect(queues.heaps[exact].count <= 10 + 32)
        #expect(queues.heaps[exact].entries.capacity == grown)
        #expect(queues.count == 10)
    }

    /// A sweep removes stale leaves only: an inner entry's removal would sift through every level
    /// below it (the tail of `make bench`'s stop at 10⁶-10⁷ timers). Cancelling the timers of
    /// every inner entry and some leaves, then arming and cancelling timers until the sweeps have
    /// gone over the heap many times, leaves stale entries in most inner places (sweeping to the
    /// root cleared all but a few).
    @Test func aSweepRemovesLeavesOnly() {
        var queues = TimerQueues()
        let ids = armThousand(&queues)
        let exact = queues.heap(TimerQueues.defaultIndex, .exact)
        let inner = Set(queues.heaps[exact].entries.prefix((queues.heaps[exact].count - 2) / 4 + 1).map(\.slot))
        var action = TimerAction.idle
        var cancelled = Set<UInt32>()
        for id in ids where inner.contains(id.slot) {
            #expect(queues.disarm(id, releasing: &action))
            cancelled.insert(id.slot)
        }
        for id in ids.filter({ !inner.contains($0.slot) }).prefix(400) {
            #expect(queues.disarm(id, releasing: &action))
            cancelled.insert(id.slot)
        }
        // Timers armed and cancelled at once: each cancel sweeps, many times over the heap.
        for index in 0..<2_000 {
            let id = queues.arm(fireDate: 3_000 + UInt64(index), interval: 0, tolerance: 0, missedTicks: .skip,
                                modeIndex: TimerQueues.defaultIndex, action: .idle)
            #expect(queues.disarm(id, releasing: &action))
        }
        let heap = queues.heaps[exact]
        #expect(heap.count < 1_000)  // 3,000 entries without the sweeps
        let innerNow = heap.entries.prefix((heap.count - 2) / 4 + 1)
        #expect(innerNow.filter { cancelled.contains($0.slot) }.count > innerNow.count / 2)
    }

    /// Cancels in random order (the heaps are rebuilt several times, in their own buffers), arms
    /// as many again, and runs: exactly the timers left fire, each once at its fire date, in
    /// fire-date order, ties in scheduling order.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func afterRebuildsTheTimersLeftFireInOrder(seed: UInt64) throws {
        let v = VirtualLoop()
        var rng = SplitMix(seed: seed)
        var dates: [Int: Int] = [:]  // scheduling index: fire date in ms
        let fired = Recorder<Fire>()
        var timers: [Int: ScheduledTimer] = [:]
        func arm(_ index: Int) throws {
            let milliseconds = Int(rng.next() % 500) + 1
            dates[index] = milliseconds
            timers[index] = try v.loop.schedule(after: Double(milliseconds) / 1000,
                                                tolerance: index % 4 == 0 ? 0.002 : 0) { tick in
                fired.append(Fire(index: index, at: Int((tick.fireDate.timeIntervalSince1970 * 1000).rounded())))
            }
        }
        for index in 0..<2_000 { try arm(index) }
        var order = Array(0..<2_000)
        for position in order.indices.reversed() {
            order.swapAt(position, Int(rng.next() % UInt64(position + 1)))
        }
        for index in order.prefix(1_800) {
            timers[index]!.cancel()
            dates[index] = nil
        }
        for index in 2_000..<4_000 { try arm(index) }
        try v.loop.run(for: 1)
        let expected = dates.keys.sorted { (dates[$0]!, $0) < (dates[$1]!, $1) }
        #expect(fired.values.map(\.index) == expected)
        #expect(fired.values.allSatisfy { $0.at == dates[$0.index]! })
    }
}

/// One fire: the timer's scheduling index and its fire date in virtual milliseconds.
private struct Fire: Sendable {
    let index: Int
    let at: Int
}
