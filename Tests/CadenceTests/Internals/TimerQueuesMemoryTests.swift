@testable import Cadence
import Glibc
import Testing

/// A timer table gives its memory back once its timers are gone (FreedMemory.swift): a large
/// table that stays empty through two pass ends keeps its buffers but not their pages, and its
/// slots' generations, so that no id names a later timer; one that fills again first keeps all.
@Suite(.serialized) struct TimerQueuesMemoryTests {  // CPU-heavy: one at a time on the shared pool
    static let many = 2 * TimerQueues.slotsKeptEmpty
    /// Enough timers for their heap's buffer to be large too (a heap entry is smaller than a slot).
    static let manyEntries = 2 * FreedMemory.threshold / MemoryLayout<TimerHeapEntry>.stride

    /// How many of the whole pages of `table`'s buffer past its entries are resident (mincore).
    func residentPagesPastEnd<Element>(of table: ContiguousArray<Element>) -> Int {
        let capacity = table.capacity
        return table.withUnsafeBufferPointer { entries in
            guard let base = entries.baseAddress else { return 0 }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (Int(bitPattern: base + entries.count) + page - 1) / page * page
            let end = Int(bitPattern: base + capacity) / page * page
            guard end > start else { return 0 }
            var resident = [UInt8](repeating: 0, count: (end - start) / page)
            _ = mincore(UnsafeMutableRawPointer(bitPattern: start), end - start, &resident)
            return resident.count { $0 & 1 != 0 }
        }
    }

    func arm(_ queues: inout TimerQueues, at fireDate: Nanoseconds = 10) -> TimerID {
        queues.arm(fireDate: fireDate, interval: 0, tolerance: 0, missedTicks: .skip,
                   modeIndex: TimerQueues.defaultIndex, action: .closure { _ in })
    }

    @discardableResult
    func cancel(_ id: TimerID, in queues: inout TimerQueues) -> Bool {
        var action = TimerAction.idle
        return queues.disarm(id, releasing: &action)
    }

    @Test func aLargeTableThatStaysEmptyKeepsItsBuffersButNotTheirPages() {
        var queues = TimerQueues()
        let ids = (0..<Self.manyEntries).map { _ in arm(&queues) }
        let capacity = queues.slots.capacity
        let heapCapacity = queues.heaps[0].entries.capacity
        for id in ids.reversed() { cancel(id, in: &queues) }  // the last cancel empties the table
        queues.endPass()
        #expect(queues.slots.count == Self.manyEntries)  // one empty pass end: kept
        queues.endPass()  // the second in a row, nothing armed between: given back
        #expect(queues.count == 0)
        #expect(queues.slots.isEmpty)
        #expect(queues.slots.capacity == capacity)  // arming as many again allocates nothing
        #expect(residentPagesPastEnd(of: queues.slots) == 0)
        #expect(queues.heaps[0].count == 0 && queues.heaps[0].entries.capacity == heapCapacity)
        let heap = queues.heaps[0].takeEntries()
        #expect(residentPagesPastEnd(of: heap) == 0)
    }

    @Test func aTableThatFillsAgainBetweenPassesKeepsItsPages() {
        var queues = TimerQueues()
        for _ in 0..<3 {  // a benchmark's rounds, a server's bursts: arm, empty, one pass, again
            let ids = (0..<Self.many).map { _ in arm(&queues) }
            for id in ids { cancel(id, in: &queues) }
            queues.endPass()
        }
        queues.endPass()  // an empty pass end after one that followed an emptying: given back now
        #expect(queues.slots.isEmpty)
        let refilled = (0..<Self.many).map { _ in arm(&queues) }
        for id in refilled { cancel(id, in: &queues) }
        queues.endPass()
        let armedAgain = arm(&queues)  // armed between the two pass ends: nothing given back
        queues.endPass()
        cancel(armedAgain, in: &queues)
        #expect(queues.slots.count == Self.many)
    }

    @Test func aSmallTableKeepsItsSlots() {
        var queues = TimerQueues()
        let ids = (0..<100).map { _ in arm(&queues) }
        for id in ids { cancel(id, in: &queues) }
        #expect(queues.slots.count == 100)
    }

    @Test func slotsMadeAgainGoOnFromTheirGenerations() {
        var queues = TimerQueues()
        let first = (0..<Self.many).map { _ in arm(&queues) }
        for id in first { cancel(id, in: &queues) }
        queues.endPass()
        queues.endPass()  // given back: the second timers make their slots anew
        #expect(queues.slots.isEmpty)
        let second = (0..<Self.many).map { _ in arm(&queues) }
        #expect(second.map(\.slot) == first.map(\.slot))
        #expect(second.allSatisfy { $0.generation == 2 })
        #expect(!first.contains { queues.isArmed($0) })
        var cancelledStale = 0
        for id in first where cancel(id, in: &queues) { cancelledStale += 1 }
        #expect(cancelledStale == 0)
        #expect(second.allSatisfy { queues.isArmed($0) })
        #expect(queues.count == Self.many)
    }

    @Test func aRetiredSlotStaysRetiredThroughAGiveBack() {
        var queues = TimerQueues()
        cancel(arm(&queues), in: &queues)
        let aged = queues.age(by: TimerID.generationLimit)  // every slot made so far retires
        #expect(aged)
        let ids = (0..<Self.many).map { _ in arm(&queues) }
        #expect(ids.first?.slot == 1)
        for id in ids { cancel(id, in: &queues) }
        queues.endPass()
        queues.endPass()
        #expect(queues.slots.isEmpty)
        let again = arm(&queues)
        #expect(again == TimerID(slot: 1, generation: 2))
    }

    @Test func aHeapThatCancelsLeaveMostlyEmptyGivesThePagesPastItsEntriesBack() {
        var queues = TimerQueues()
        let ids = (0..<(2 * Self.manyEntries)).map { _ in arm(&queues) }
        for id in ids.dropFirst(ids.count / 10) { cancel(id, in: &queues) }  // sweeps on the way
        #expect(queues.count == ids.count / 10)
        #expect(queues.heaps[0].entries.count * 4 <= queues.heaps[0].entries.capacity)
        let heap = queues.heaps[0].takeEntries()
        // Pages go back as the sweeps shrink the heap: at most as many again as the entries' own stay.
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        #expect(residentPagesPastEnd(of: heap) * page <= heap.count * MemoryLayout<TimerHeapEntry>.stride + page)
        #expect(heap.count < ids.count / 10 * 2)  // the stale entries went as the cancels came
    }

    /// A heap that shrinks gives its pages back a quarter megabyte at a time, so that no sweep
    /// pays for more (`make bench`'s stop tail): at each step, what stays resident past the
    /// entries is at most that much and the entries removed since the last step.
    @Test func aShrinkingHeapGivesItsPagesBackInSmallSteps() {
        var heap = TimerHeap()
        let stride = MemoryLayout<TimerHeapEntry>.stride, removals = 1024
        let step = FreedMemory.threshold / 4 / stride
        for index in 0..<(16 * step) {
            heap.insert(TimerHeapEntry(key: Nanoseconds(index), sequence: UInt32(index), slot: UInt32(index)))
        }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var most = 0, steps = 0
        while heap.count > step {
            for _ in 0..<removals { heap.remove(at: heap.count - 1) }  // leaves first, as a sweep
            heap.releasePagesOnceShrunk()
            most = max(most, residentPagesPastEnd(of: heap.entries) * page)
            steps += 1
        }
        #expect(most > 0)  // pages did stay between steps: the check below can fail
        #expect(most <= (step + removals) * stride + page)  // at a halving: 2 MB of 4
        #expect(steps == 15 * step / removals)
    }

    /// What a shrinking heap gives back lies past its entries only: filled, then emptied a few
    /// entries at a time from anywhere in it (with releases after each few, and some entries put
    /// back between), it still holds every entry not removed, intact and in heap order. Counts and
    /// removals are odd, so that the entries end mid-page: a release that rounded the wrong way
    /// would zero the entries of the last page (slots from 1: a zeroed entry is none of them).
    @Test(arguments: [3 * FreedMemory.threshold / 16 + 4093, FreedMemory.threshold / 4 + 1])
    func aShrinkingHeapKeepsEveryEntryItHolds(count: Int) {
        func entry(_ slot: Int) -> TimerHeapEntry {
            TimerHeapEntry(key: Nanoseconds(slot &* 7919 % 1_000_003), sequence: UInt32(slot), slot: UInt32(slot))
        }
        var heap = TimerHeap(), held = [Bool](repeating: true, count: 4 * count), heldCount = count
        held[0] = false
        for slot in 1...count { heap.insert(entry(slot)) }
        for slot in (count + 1)..<held.count { held[slot] = false }
        var random = SystemRandomNumberGenerator(), next = count + 1, round = 0
        let removals = [1, 3, 997, 4093, 255, 257, 12_289]
        while heap.count > 100 {
            round += 1
            for _ in 0..<min(removals[round % removals.count], heap.count - 1) {
                let index = round % 3 == 0 ? heap.count - 1 : Int.random(in: 0..<heap.count, using: &random)
                held[Int(heap.entries[index].slot)] = false
                heldCount -= 1
                if index == 0 && round % 2 == 0 { heap.removeFirst() } else { heap.remove(at: index) }
            }
            heap.releasePagesOnceShrunk()
            if round % 5 == 0 {  // some come back: written where pages may have gone
                for _ in 0..<(round % 7 * 101) where next < held.count {
                    heap.insert(entry(next))
                    held[next] = true
                    heldCount += 1
                    next += 1
                }
                heap.releasePagesOnceShrunk()
            }
            let intact = heap.entries.withUnsafeBufferPointer { entries in
                entries.indices.allSatisfy { index in
                    let found = entries[index], slot = Int(found.slot)
                    return slot < held.count && held[slot] && found.key == entry(slot).key && found.sequence == found.slot
                        && (index == 0 || !found.precedes(entries[(index - 1) / 4]))
                }
            }
            #expect(intact, "round \(round): \(heap.count) entries")
            #expect(heap.count == heldCount)
            if !intact { break }
        }
        #expect(round > 50)
    }

    /// Once it is full past `FreedMemory.reservedAfter` slots, a table moves once, to room for every slot a loop
    /// can have, and never again: no later start copies the table (the tail of `make bench`'s
    /// scale table); the room takes memory only where slots are written.
    @Test func aLargeTableMovesOnceAndThenGrowsInPlace() throws {
        try #require(FreedMemory.reservesAddressSpace)
        var queues = TimerQueues()
        for _ in 0...(2 * FreedMemory.reservedAfter) { _ = arm(&queues) }  // past a doubling beyond it
        #expect(queues.slots.capacity >= TimerID.handleSlotLimit)
        let heap = queues.heap(TimerQueues.defaultIndex, .exact)
        #expect(queues.heaps[heap].entries.capacity >= TimerHeap.entryLimit)
        let buffer = queues.slots.withUnsafeBufferPointer { $0.baseAddress }
        for _ in 0..<(4 * FreedMemory.reservedAfter) { _ = arm(&queues) }
        #expect(queues.slots.withUnsafeBufferPointer { $0.baseAddress } == buffer)
        #expect(residentPagesPastEnd(of: queues.slots) < 64)  // the reserved room is not memory
    }

    /// The `VmFlags` of the mapping that holds `address` (/proc/self/smaps, read line by line:
    /// a file of procfs has no size to read up to), or nil.
    func mappingFlags(at address: Int) -> [Substring]? {
        guard let file = fopen("/proc/self/smaps", "r") else { return nil }
        defer { fclose(file) }
        var buffer: UnsafeMutablePointer<CChar>?, size = 0, inside = false
        defer { free(buffer) }
        while getline(&buffer, &size, file) > 0, let buffer {
            let fields = String(cString: buffer).split(whereSeparator: \.isWhitespace)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { Int($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside && fields.first == "VmFlags:" {
                return Array(fields.dropFirst())
            }
        }
        return nil
    }

    /// A table that reserves its room asks for huge pages past its first 8 MB (`MADV_HUGEPAGE`,
    /// the flag `hg` of its mapping), where the kernel has transparent huge pages, and keeps
    /// small pages before: one TLB entry per 2 MB where millions of timers are reached at random.
    @Test func aReservedTableAsksForHugePagesPastItsFirstEightMegabytes() throws {
        try #require(FreedMemory.reservesAddressSpace)
        var queues = TimerQueues()
        for _ in 0...(2 * FreedMemory.reservedAfter) { _ = arm(&queues) }  // past a doubling beyond it
        let stride = MemoryLayout<TimerSlot>.stride
        #expect(queues.slots.capacity * stride > FreedMemory.hugeFrom + 4 << 21)
        let base = queues.slots.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
        let kernelHasThem = access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0
        let far = try #require(mappingFlags(at: base + FreedMemory.hugeFrom + 2 << 21))
        let near = try #require(mappingFlags(at: base + FreedMemory.hugeFrom - 2 << 21))
        #expect(far.contains("hg") == kernelHasThem)
        #expect(!near.contains("hg"))
    }

    /// A pass that takes its due timers at once takes its heap's buffer with them and gives it
    /// back when it ends, whatever the sort did with it (fire dates spread over 2²⁵ ns take three
    /// radix passes, the last into the sort's scratch): arming as many timers again neither
    /// grows the heap nor writes to fresh pages.
    @Test(arguments: [Nanoseconds(1), 1 << 25])
    func aPassThatTakesAllGivesItsHeapItsBufferBack(spacing: Nanoseconds) throws {
        try #require(FreedMemory.reservesAddressSpace)
        var queues = TimerQueues()
        queues.takeAllMinimum = FreedMemory.reservedAfter  // these heaps take all (the default is 2¹⁷)
        let count = 2 * FreedMemory.reservedAfter
        for index in 0..<count { _ = arm(&queues, at: 10 + Nanoseconds(index % 1_000) * spacing / 1_000) }
        let heap = queues.heap(TimerQueues.defaultIndex, .exact)
        let buffer = queues.heaps[heap].entries.withUnsafeBufferPointer { $0.baseAddress }
        let capacity = queues.heaps[heap].entries.capacity
        let now = 10 + spacing
        let pass = queues.beginPass(runningIn: TimerQueues.defaultIndex, now: now)
        #expect(pass.tookAll)
        #expect(queues.taken.withUnsafeBufferPointer { $0.baseAddress } == buffer)
        var fire = TimerQueues.Fire()
        var fired = 0
        while queues.fireNext(in: pass, now: now, into: &fire) { fired += 1 }
        queues.endPass()
        #expect(fired == count && queues.count == 0)
        #expect(queues.heaps[heap].entries.withUnsafeBufferPointer { $0.baseAddress } == buffer)
        #expect(queues.heaps[heap].entries.capacity == capacity)
        queues.endPass()  // the second quiet pass end: the buffer stays, its pages go
        #expect(queues.heaps[heap].entries.capacity == capacity)
        #expect(residentPagesPastEnd(of: queues.heaps[heap].entries) == 0)
    }


    /// A pass that took its due timers at once in its heap's buffer (the heap then holds the rest
    /// in a new one) and gives it back: cancels during the pass shrink the new buffer, cancels
    /// after it the old one, and as it shrinks the pages that the taken entries used past the
    /// heap's own still go back (at most a release step, a quarter megabyte, stays), as they do
    /// for a heap that never gave its buffer (`aHeapThatCancelsLeaveMostlyEmptyGivesThePagesPastItsEntriesBack`).
    @Test func aHeapThatLentItsBufferToAPassGivesPagesBackAsItShrinks() {
        var queues = TimerQueues()
        queues.takeAllMinimum = FreedMemory.reservedAfter  // these heaps take all (the default is 2¹⁷)
        let due = (0..<Self.manyEntries).map { _ in arm(&queues, at: 10) }
        let later = (0..<(Self.manyEntries / 2)).map { _ in arm(&queues, at: 1_000) }
        let pass = queues.beginPass(runningIn: TimerQueues.defaultIndex, now: 10)
        #expect(pass.tookAll)
        for id in later.dropFirst(later.count / 8) { cancel(id, in: &queues) }  // sweeps the new buffer
        var fire = TimerQueues.Fire(), fired = 0
        while queues.fireNext(in: pass, now: 10, into: &fire) { fired += 1 }
        queues.endPass()
        #expect(fired == due.count)
        for id in later.prefix(later.count / 8).dropFirst(later.count / 32) { cancel(id, in: &queues) }
        #expect(queues.count == later.count / 32)
        let heap = queues.heaps[TimerQueues.defaultIndex].takeEntries()
        let page = Int(sysconf(Int32(_SC_PAGESIZE))), stride = MemoryLayout<TimerHeapEntry>.stride
        #expect(heap.capacity >= due.count)  // the buffer the pass took, whose pages it wrote
        #expect(residentPagesPastEnd(of: heap) * page <= FreedMemory.threshold / 4 + heap.count * stride + page)
    }

    /// The same with repeating timers, whose next fire dates, not due, go back into the heap
    /// while the pass runs (into the buffer it holds meanwhile): when the pass ends the heap has
    /// the buffer it lent back, with them, whether none of its entries stayed behind or many.
    @Test(arguments: [0, FreedMemory.reservedAfter + 1])
    func aPassOfRepeatingTimersGivesItsHeapItsBufferBack(notDue: Int) throws {
        try #require(FreedMemory.reservesAddressSpace)
        var queues = TimerQueues()
        queues.takeAllMinimum = FreedMemory.reservedAfter  // these heaps take all (the default is 2¹⁷)
        let due = 2 * FreedMemory.reservedAfter
        for index in 0..<(due + notDue) {
            _ = queues.arm(fireDate: index < due ? 10 : 1_000_000, interval: 1_000, tolerance: 0, missedTicks: .skip,
                           modeIndex: TimerQueues.defaultIndex, action: .closure { _ in })
        }
        let heap = queues.heap(TimerQueues.defaultIndex, .exact)
        let buffer = queues.heaps[heap].entries.withUnsafeBufferPointer { $0.baseAddress }
        let pass = queues.beginPass(runningIn: TimerQueues.defaultIndex, now: 10)
        #expect(pass.tookAll)
        let standIn = queues.heaps[heap].entries.withUnsafeBufferPointer { $0.baseAddress }
        var fire = TimerQueues.Fire(), fired = 0
        while queues.fireNext(in: pass, now: 10, into: &fire) { fired += 1 }
        // Not moved by the re-queues: a move would have copied the heap inside one of them.
        #expect(queues.heaps[heap].entries.withUnsafeBufferPointer { $0.baseAddress } == standIn)
        queues.endPass()
        #expect(fired == due && queues.heaps[heap].count == due + notDue)
        #expect(queues.heaps[heap].entries.withUnsafeBufferPointer { $0.baseAddress } == buffer)
    }
}
