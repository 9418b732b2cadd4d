/// Sorts heap entries into fire order, for a pass that takes many due timers at once: by key, then
/// equal keys by sequence, as ``TimerHeapEntry/precedes(_:)`` orders them.
///
/// A least-significant-digit radix sort over the bits in which the keys differ, 11 bits a pass (a
/// pass reads and writes each entry once), then each run of equal keys sorted by sequence. Due
/// keys usually span milliseconds to seconds, so two or three passes. Measured at 10⁵ random
/// keys spanning 20 ms: about 50–60 ns per entry, where popping the same entries from the heap
/// one at a time costs about 150 ns each and the standard library's comparison sort about 110.
enum FireOrder {
    private static let digitBits = 11
    private static let buckets = 1 << digitBits

    static func sort(_ entries: inout ContiguousArray<TimerHeapEntry>) {
        guard entries.count > 1 else { return }
        var low = Nanoseconds.max, high: Nanoseconds = 0
        for entry in entries {
            low = min(low, entry.key)
            high = max(high, entry.key)
        }
        let bits = Nanoseconds.bitWidth - (high - low).leadingZeroBitCount  // 0 when all keys are equal
        let passes = (bits + digitBits - 1) / digitBits
        if passes > 0 {
            // Same size, written whole by the first pass: no copy of the entries.
            var scratch = ContiguousArray<TimerHeapEntry>(unsafeUninitializedCapacity: entries.count) { _, count in
                count = entries.count
            }
            radixSort(&entries, scratch: &scratch, low: low, passes: passes)
            if passes % 2 == 1 {
                // The last pass wrote to the scratch: copied back rather than swapped, so that the
                // entries keep their buffer (a heap's, which gets it back: TimerHeap.takeKeys).
                entries.withUnsafeMutableBufferPointer { target in
                    scratch.withUnsafeBufferPointer { source in _ = target.update(fromContentsOf: source) }
                }
            }
        }
        entries.withUnsafeMutableBufferPointer(sortEqualKeyRuns)
    }

    /// Sorts `entries` by `key - low`, `passes` digits, each pass from one buffer to the other
    /// (stable, so each pass keeps the order of the digits below it).
    private static func radixSort(_ entries: inout ContiguousArray<TimerHeapEntry>,
                                  scratch: inout ContiguousArray<TimerHeapEntry>, low: Nanoseconds, passes: Int) {
        let mask = Nanoseconds(buckets - 1)
        var offsets = [Int](repeating: 0, count: passes * buckets)
        entries.withUnsafeMutableBufferPointer { first in
            scratch.withUnsafeMutableBufferPointer { second in
                offsets.withUnsafeMutableBufferPointer { offsets in
                    // One read counts the digits of every pass, then each count becomes the
                    // position where that digit's entries start.
                    // Wrapping arithmetic in the loops: every value is in range by construction, and
                    // overflow checks would double the instructions per entry.
                    for entry in first {
                        var key = entry.key &- low
                        var base = 0
                        for _ in 0..<passes {
                            offsets[base &+ Int(truncatingIfNeeded: key & mask)] &+= 1
                            key &>>= Nanoseconds(digitBits)
                            base &+= buckets
                        }
                    }
                    for pass in 0..<passes {
                        var start = 0
                        for digit in pass * buckets..<(pass + 1) * buckets {
                            let count = offsets[digit]
                            offsets[digit] = start
                            start &+= count
                        }
                    }
                    var source = first, target = second
                    for pass in 0..<passes {
                        let shift = Nanoseconds(pass * digitBits)
                        let base = pass * buckets
                        for entry in source {
                            let digit = base &+ Int(truncatingIfNeeded: ((entry.key &- low) &>> shift) & mask)
                            target[offsets[digit]] = entry
                            offsets[digit] &+= 1
                        }
                        swap(&source, &target)
                    }
                }
            }
        }
    }

    /// Puts each run of equal keys in sequence order (usually runs of one, which cost a compare).
    private static func sortEqualKeyRuns(_ entries: inout UnsafeMutableBufferPointer<TimerHeapEntry>) {
        var start = 0
        while start < entries.count {
            let key = entries[start].key
            var end = start &+ 1
            while end < entries.count && entries[end].key == key { end &+= 1 }
            if end &- start > 1 { entries[start..<end].sort { $0.precedes($1) } }
            start = end
        }
    }
}
