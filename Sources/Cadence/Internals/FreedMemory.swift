import CLibUV
import Glibc
import Synchronization

/// How the timer tables grow, and how they give memory back after growing and once their timers
/// are gone.
///
/// A small table that grows moves to a buffer twice its size and frees the old one; a large one
/// moves once more, to room for as many entries as it can ever hold, and grows in place from then
/// on (``grow(_:limit:)``). Once glibc's
/// allocator has raised its mmap threshold (it does after the first large free), such buffers
/// come from the heap and their pages stay resident after they are freed, until something reuses
/// them. At 10⁶ timers that was about 17 bytes per timer of resident memory nobody used
/// (137 → 120 B). `malloc_trim` returns those pages; a table grows O(log n) times, each time
/// copying its entries anyway, so the call costs nothing per timer. But `malloc_trim` acts on the
/// whole process's heap, not on Cadence's tables alone, so a library makes it only when the
/// program asks: ``trims`` is off until ``Loop/trimsMemory`` (C's `cadence_set_trim_memory`,
/// Python's `cadence.set_trim_memory`) turns it on, and ``trimCount`` counts the calls made.
///
/// A table whose timers are gone keeps its buffer, so that arming as many timers again allocates
/// and copies nothing, but gives the pages past its live entries back (``releasePages(pastEndOf:)``):
/// the buffer's capacity stays reserved, its memory is no longer resident, and the next entries
/// written there take fresh zeroed pages from the kernel (one page fault per 4 KB). Freeing the
/// buffer instead would not do: glibc keeps a freed heap buffer resident, and the next growth
/// would allocate and copy again. It does so once it has stayed empty through two pass ends
/// (``TimerQueues/noteQuietPassEnd()``): one that fills again at once keeps its pages.
package enum FreedMemory {
    /// Tables smaller than this grow without a trim (their old buffers are small), and keep the
    /// pages past their entries.
    static let threshold = 1 << 20

    /// Whether a table that grows past ``threshold`` calls `malloc_trim(0)`; off by default.
    package static let trims = Atomic(false)

    /// How many `malloc_trim(0)` calls the tables have made in this process.
    package static let trimCount = Atomic<UInt64>(0)

    /// Appends `element` to an engine table, giving the old buffer back if the table grew. A
    /// table that outgrows ``reservedAfter`` elements moves once to a buffer of `limit` (see
    /// ``grow(_:limit:)``).
    @inline(__always)
    static func append<Element>(_ element: Element, to table: inout ContiguousArray<Element>, limit: Int) {
        if table.count == table.capacity { grow(&table, limit: limit) }
        table.append(element)
    }

    /// How many elements a table holds before it reserves its `limit` (``grow(_:limit:)``): its
    /// one move then copies at most 2¹⁴ elements (1.3 MB of timer slots, about 0.2 ms).
    static let reservedAfter = 1 << 14

    /// Grows a full table. A small one doubles, as an array does. One past ``reservedAfter``
    /// elements moves once to a buffer of `limit` elements, the most it can hold, and never moves
    /// again: the allocator maps a buffer that large straight from the kernel, whose pages take
    /// memory only when first written, so the reservation costs address space, not memory (a
    /// loop's timer slots: 2²⁴ × 40 bytes, 671 MB of the 128 TB a process has), and no start pays
    /// for copying the table again (at 10⁷ timers a doubling copied 800 MB inside one start,
    /// 8 µs per start over its batch of 1,000). Where address space is scarce (an `RLIMIT_AS`, or
    /// strict overcommit, which charges untouched pages) tables double all the way, as before.
    @inline(never)  // off the hot paths that check for growth
    static func grow<Element>(_ table: inout ContiguousArray<Element>, limit: Int) {
        let capacity = table.capacity
        if capacity >= reservedAfter && capacity < limit && reservesAddressSpace {
            table.reserveCapacity(limit)
            adviseHugePages(&table)
        } else {
            table.reserveCapacity(Swift.max(16, capacity * 2))
        }
        release(afterGrowingTo: table.capacity * MemoryLayout<Element>.stride)
    }

    /// Asks the kernel to back the part of `table`'s buffer past its first ``hugeFrom`` bytes
    /// with huge pages (`MADV_HUGEPAGE`, honoured where transparent huge pages are `madvise` or
    /// `always`): one page fault and one TLB entry per 2 MB instead of 512 of each. At 10⁷ timers
    /// a random-order cancel misses the TLB on nearly every timer, and a start faults in a fresh
    /// page every 50 timers; measured at 10⁷ (C, `bench scale`, four runs each, interleaved):
    /// start 96-101 ns against 109-123, stop 274-285 against 311-338, fire unchanged, start's
    /// p99.9 of batches 440-475 against 170-390 (a 2 MB page is zeroed inside one start). The
    /// first ``hugeFrom`` bytes keep small pages, so that a table of some ten thousand timers
    /// does not round its memory up to 2 MB.
    static func adviseHugePages<Element>(_ table: inout ContiguousArray<Element>) {
        let bytes = table.capacity * MemoryLayout<Element>.stride
        table.withUnsafeMutableBufferPointer { entries in
            let start = Int(bitPattern: entries.baseAddress), huge = 1 << 21
            guard start != 0 else { return }
            advise(from: (start + hugeFrom + huge - 1) / huge * huge, to: (start + bytes) / huge * huge, .hugePages)
        }
    }

    /// Where the huge pages of a reserved table begin (``adviseHugePages(_:)``): 8 MB, past which
    /// a table's last, partly used huge page adds at most a quarter to its memory.
    static let hugeFrom = 1 << 23

    /// Whether the tables may reserve their limits: no limit on the address space, and the kernel
    /// does not charge untouched pages (`vm.overcommit_memory` is not 2).
    static let reservesAddressSpace: Bool = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur == rlim_t.max else { return false }  // RLIM_INFINITY
        guard let file = fopen("/proc/sys/vm/overcommit_memory", "r") else { return true }
        defer { fclose(file) }
        return fgetc(file) != Int32(UInt8(ascii: "2"))
    }()

    /// Call after a table's buffer grew to `capacityBytes` (the handle registry calls it directly,
    /// for its array of slots).
    @inline(never)  // off the hot paths that check for growth
    static func release(afterGrowingTo capacityBytes: Int) {
        guard capacityBytes >= threshold, trims.load(ordering: .relaxed) else { return }
        _ = malloc_trim(0)
        trimCount.add(1, ordering: .relaxed)
    }

    /// Gives the system the whole pages of `table`'s buffer past its entries, if they add up to
    /// ``threshold`` or more; the buffer and its capacity stay. O(1) unless it releases; a caller
    /// releases only after as many entries have gone, so the cost is amortized over them.
    @inline(__always)
    static func releasePages<Element>(pastEndOf table: inout ContiguousArray<Element>) {
        let count = table.count, capacity = table.capacity
        guard (capacity - count) * MemoryLayout<Element>.stride >= threshold else { return }
        releasePages(of: &table, from: count, upTo: capacity)
    }

    /// Gives the system the pages of `table`'s buffer from element `start` to element `end`, both
    /// at or past its entries and within its capacity: part of what lies past the entries, at a
    /// cost bounded by its length (the kernel walks the range). The page that holds element `end`
    /// goes too, unless it is the buffer's last: what lies past `end` is no entry either, and a
    /// range that ended there last time left that page, which held entries then. The memory there
    /// holds no element (it is uninitialized as far as the array is concerned), and whole pages
    /// within the buffer hold none of the allocator's bookkeeping, which sits before the buffer
    /// and after it.
    static func releasePages<Element>(of table: inout ContiguousArray<Element>, from start: Int, upTo end: Int) {
        table.withUnsafeMutableBufferPointer { _ in }  // unique first: a copy made below would be smaller
        let count = table.count, capacity = table.capacity
        guard count <= start, start < end, end <= capacity else { return }
        table.withUnsafeMutableBufferPointer { entries in
            guard let base = entries.baseAddress else { return }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let first = (Int(bitPattern: base + start) + page - 1) / page * page
            let last = min((Int(bitPattern: base + end) + page - 1) / page, Int(bitPattern: base + capacity) / page) * page
            advise(from: first, to: last, .release)
        }
    }

    /// What ``advise(from:to:_:)`` tells the kernel of a range of pages.
    private enum Advice {
        /// Back to the kernel, zeroed when next written; their address space stays.
        case release
        /// Backed by huge pages where the kernel can.
        case hugePages
    }

    /// `madvise` of the pages from address `first` to address `last` (page boundaries).
    @inline(never)
    private static func advise(from first: Int, to last: Int, _ advice: Advice) {
        guard last > first, let address = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(address, last - first, advice == .release ? MADV_DONTNEED : MADV_HUGEPAGE)
    }
}
