/// Sorts heap entries into fire order, for a pass that takes many due timers at once: by key, then
/// equal keys by sequence, as ``TimerHeapEntry/precedes(_:)`` orders them.
///
/// A least-significant-digit radix sort over the bits in which the keys differ, 11 bits a pass (a
/// pass reads and writes each entry once), then each run of equal keys sorted by sequence. Due
/// keys usually span milliseconds to seconds, so two or three passes. Measured at 10⁵ random
/// keys spanning 20 ms: about 50–60 ns per entry, where popping the same entries from the heap
/// one at a time costs about 150 ns each and the standard library's comparison sort about 110.
///
/// Past ``splitMinimum`` entries (more than a core's cache holds) and two passes, the first pass
/// splits by the top digit instead, into runs that each fit in the cache, and the runs are then
/// sorted by the digits below it one at a time: memory sees one scatter instead of two or three.
/// Measured (C, `bench scale`, three runs each): at 10⁷ timers due within about a second, fire's
/// mean 62-76 ns against 95-122 with passes over the whole buffer; at 10⁶ 58-60 against 61-68.
/// Sorting 10⁷ shuffled entries alone: 31 ns per entry against 40.
enum FireOrder {
    private static let digitBits = 11
    private static let buckets = 1 << digitBits
    /// The fewest entries sorted by splitting on the top digit first: 8 MB of entries. Each of
    /// the 2,048 runs pays for its own digit counts, which fewer entries do not repay. One sort of
    /// keys spread evenly over 2³⁰ or 2⁴⁵ ns, in random order, ns per entry, split against not:
    /// at 2¹⁷ entries 65-117 against 31-47, at 2¹⁹ 34-59 against 40-62, at 10⁷ 40-48 against 58-79.
    static let splitMinimum = 1 << 19

    static func sort(_ entries: inout ContiguousArray<TimerHeapEntry>, splitMinimum: Int = splitMinimum) {
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
            // The entries end in their own buffer (a heap's, which gets it back:
            // TimerHeap.takeKeys): a sort that ends in the scratch is copied back, not swapped.
            entries.withUnsafeMutableBufferPointer { first in
                scratch.withUnsafeMutableBufferPointer { second in
                    if passes > 1 && first.count >= splitMinimum {
                        splitSort(first, second, low: low, bits: bits)
                    } else if radixSort(first, second, low: low, passes: passes) {
                        _ = first.update(fromContentsOf: second)
                    }
                }
            }
        }
        entries.withUnsafeMutableBufferPointer(sortEqualKeyRuns)
    }

    /// Sorts `first` by `key - low`, whose differing bits are the lowest `bits` (more than one
    /// digit): one pass splits it into `second` by the top digit, then each run, small enough for
    /// the cache, is sorted by the digits below and ends back in `first`.
    private static func splitSort(_ first: UnsafeMutableBufferPointer<TimerHeapEntry>,
                                  _ second: UnsafeMutableBufferPointer<TimerHeapEntry>,
                                  low: Nanoseconds, bits: Int) {
        let shift = Nanoseconds(bits - digitBits)
        let passes = (bits - 1) / digitBits  // the digits below the top one
        var ends = [Int](repeating: 0, count: buckets)
        var counts = [Int](repeating: 0, count: passes * buckets)  // every run's, in turn
        ends.withUnsafeMutableBufferPointer { ends in counts.withUnsafeMutableBufferPointer { counts in
            for entry in first { ends[Int(truncatingIfNeeded: (entry.key &- low) &>> shift)] &+= 1 }
            var start = 0
            for digit in 0..<buckets {  // each count becomes where its run starts
                let count = ends[digit]
                ends[digit] = start
                start &+= count
            }
            for entry in first {
                let digit = Int(truncatingIfNeeded: (entry.key &- low) &>> shift)
                second[ends[digit]] = entry
                ends[digit] &+= 1  // ends as the run's end
            }
            var runStart = 0
            for digit in 0..<buckets {
                let end = ends[digit]
                if end &- runStart == 1 {
                    first[runStart] = second[runStart]
                } else if end &- runStart > 1 {
                    let run = UnsafeMutableBufferPointer(rebasing: second[runStart..<end])
                    let back = UnsafeMutableBufferPointer(rebasing: first[runStart..<end])
                    if !radixSort(run, back, low: low, passes: passes, counts: counts) {
                        _ = back.update(fromContentsOf: run)
                    }
                }
                runStart = end
            }
        } }
    }

    /// Sorts `source` by the lowest `passes` digits of `key - low`, each pass from one buffer to
    /// the other (stable, so each pass keeps the order of the digits below it). Returns whether
    /// the sorted entries ended in `target` (an odd number of passes).
    private static func radixSort(_ source: UnsafeMutableBufferPointer<TimerHeapEntry>,
                                  _ target: UnsafeMutableBufferPointer<TimerHeapEntry>,
                                  low: Nanoseconds, passes: Int) -> Bool {
        var counts = [Int](repeating: 0, count: passes * buckets)
        return counts.withUnsafeMutableBufferPointer { radixSort(source, target, low: low, passes: passes, counts: $0) }
    }

    /// ``radixSort(_:_:low:passes:)`` with the digit counts in `counts` (`passes` × 2,048, any
    /// contents: zeroed first).
    private static func radixSort(_ source: UnsafeMutableBufferPointer<TimerHeapEntry>,
                                  _ target: UnsafeMutableBufferPointer<TimerHeapEntry>,
                                  low: Nanoseconds, passes: Int, counts offsets: UnsafeMutableBufferPointer<Int>) -> Bool {
        let mask = Nanoseconds(buckets - 1)
        offsets.update(repeating: 0)
        // One read counts the digits of every pass, then each count becomes the position where
        // that digit's entries start.
        // Wrapping arithmetic in the loops: every value is in range by construction, and
        // overflow checks would double the instructions per entry.
        for entry in source {
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
        var from = source, to = target
        for pass in 0..<passes {
            let shift = Nanoseconds(pass * digitBits)
            let base = pass * buckets
            for entry in from {
                let digit = base &+ Int(truncatingIfNeeded: ((entry.key &- low) &>> shift) & mask)
                to[offsets[digit]] = entry
                offsets[digit] &+= 1
            }
            swap(&from, &to)
        }
        return passes % 2 == 1
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
