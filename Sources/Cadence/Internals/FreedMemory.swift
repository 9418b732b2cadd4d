import CLibUV
import Glibc
import Synchronization

/// Gives memory back to the system after a timer table has grown, and after its timers are gone.
///
/// A table that grows moves to a buffer twice its size and frees the old one; once glibc's
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

    /// Appends `element` to an engine table, giving the old buffer back if the table grew.
    @inline(__always)
    static func append<Element>(_ element: Element, to table: inout ContiguousArray<Element>) {
        let grows = table.count == table.capacity
        table.append(element)
        if grows { release(afterGrowingTo: table.capacity * MemoryLayout<Element>.stride) }
    }

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
        let capacity = table.capacity
        guard (capacity - table.count) * MemoryLayout<Element>.stride >= threshold else { return }
        table.withUnsafeMutableBufferPointer { releasePages(pastEndOf: $0, capacity: capacity) }
    }

    /// The pages of a buffer of `capacity` elements from the end of `entries` (the first
    /// `entries.count` of them, which stay) to the end of the buffer. The memory there holds no
    /// element (it is uninitialized as far as the array is concerned), and whole pages within the
    /// buffer hold none of the allocator's bookkeeping, which sits before the buffer and after it.
    @inline(never)
    private static func releasePages<Element>(pastEndOf entries: UnsafeMutableBufferPointer<Element>, capacity: Int) {
        guard let base = entries.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: base + entries.count) + page - 1) / page * page
        let end = Int(bitPattern: base + capacity) / page * page
        guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(address, end - start, MADV_DONTNEED)
    }
}
