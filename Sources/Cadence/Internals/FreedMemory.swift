import CLibUV

/// Gives freed memory back to the system after a timer table has grown.
///
/// A table that grows moves to a buffer twice its size and frees the old one; once glibc's
/// allocator has raised its mmap threshold (it does after the first large free), such buffers
/// come from the heap and their pages stay resident after they are freed, until something reuses
/// them. At 10⁶ timers that was about 17 bytes per timer of resident memory nobody used
/// (137 → 120 B). `malloc_trim` returns those pages; a table grows O(log n) times, each time
/// copying its entries anyway, so the call costs nothing per timer.
package enum FreedMemory {
    /// Tables smaller than this grow without a trim (their old buffers are small).
    static let threshold = 1 << 20

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
    package static func release(afterGrowingTo capacityBytes: Int) {
        if capacityBytes >= threshold { _ = malloc_trim(0) }
    }
}
