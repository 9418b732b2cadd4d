/// When a loop next wakes: the wake-up rule over the fire dates and tolerance windows.
extension TimerQueues {
    /// When to wake next while running in `mode`: let D be the earliest end of a tolerance
    /// window among the eligible timers; wake at the latest fire date not after D. Every timer due
    /// by then fires in that wake-up, each within its window, and a lone timer fires on time. This
    /// greedy choice stabs every window with as few wake-ups as any schedule can.
    mutating func nextWake(runningIn mode: Int) -> Nanoseconds? {
        nextWakeAndDeadline(runningIn: mode)?.wake
    }

    /// ``nextWake(runningIn:)`` and the deadline D it serves (the earliest end of a window), for a
    /// host's clock, which keeps both so that arming one more timer plans its wake-up in O(1)
    /// (`Loop.planHostWakeLocked(afterArming:tolerance:)`).
    mutating func nextWakeAndDeadline(runningIn mode: Int) -> (wake: Nanoseconds, deadline: Nanoseconds)? {
        // The common case (a lone pass's): every timer that can fire is in one heap, without
        // tolerance, so its first live entry is D and the wake-up.
        if let lone = loneHeap(mode) {
            dropStaleTop(lone)
            return heaps[lone].first.map { ($0.key, $0.key) }
        }
        let withCommon = isCommon[mode]
        var limit = windowEnd(mode)
        if withCommon, let common = windowEnd(Self.commonIndex) { limit = min(limit ?? common, common) }
        guard let limit else { return nil }
        // D is a zero-tolerance timer's fire date (the common case: a lone timer, a server's
        // timeouts): no fire date is later than D, and that one is D, so the wake-up is D without
        // walking the heaps for it (a lone repeating timer's wake-up: 1,933 instructions, not
        // 2,219; callgrind).
        if heaps[heap(mode, .exact)].first?.key == limit
            || withCommon && heaps[heap(Self.commonIndex, .exact)].first?.key == limit {
            return (limit, limit)
        }
        var wake = latestFireDate(mode, notAfter: limit)
        if withCommon, let common = latestFireDate(Self.commonIndex, notAfter: limit) {
            wake = max(wake ?? common, common)
        }
        return wake.map { ($0, limit) }
    }

    /// Whether a timer of mode `timerMode` can fire in a run in `mode`: its own mode, or `common`
    /// while `mode` is a common mode.
    func canFire(_ timerMode: Int, runningIn mode: Int) -> Bool {
        timerMode == mode || (timerMode == Self.commonIndex && isCommon[mode])
    }

    /// The earliest end of a tolerance window in `mode`.
    private mutating func windowEnd(_ mode: Int) -> Nanoseconds? {
        dropStaleTop(heap(mode, .exact))
        dropStaleTop(heap(mode, .windows))
        switch (heaps[heap(mode, .exact)].first?.key, heaps[heap(mode, .windows)].first?.key) {
        case let (exact?, window?): return min(exact, window)
        case let (exact, window): return exact ?? window
        }
    }

    /// The latest key not after `limit` among the live entries of `heap`, visiting only entries
    /// whose key is ≤ `limit` (which the heap order makes a pruned walk). A method rather than a
    /// walk on the heap with a liveness closure: a closure would capture a copy of `self`, all
    /// of its arrays retained and released, on every wake-up.
    private func latestLiveKey(_ heap: Int, notAfter limit: Nanoseconds, from index: Int = 0) -> Nanoseconds? {
        guard index < heaps[heap].count, heaps[heap].entries[index].key <= limit else { return nil }
        var latest: Nanoseconds? = isLive(heaps[heap].entries[index], in: heap) ? heaps[heap].entries[index].key : nil
        let firstChild = 4 * index + 1
        for child in firstChild..<max(firstChild, min(firstChild + 4, heaps[heap].count)) {
            if let found = latestLiveKey(heap, notAfter: limit, from: child) { latest = max(latest ?? found, found) }
        }
        return latest
    }

    /// The latest live fire date not after `limit` in `mode`.
    private func latestFireDate(_ mode: Int, notAfter limit: Nanoseconds) -> Nanoseconds? {
        let exact = heap(mode, .exact)
        let tolerant = heap(mode, .tolerant)
        switch (latestLiveKey(exact, notAfter: limit), latestLiveKey(tolerant, notAfter: limit)) {
        case let (exact?, tolerant?): return max(exact, tolerant)
        case let (exact, tolerant): return exact ?? tolerant
        }
    }

    /// Drops stale entries from the top of a heap, so that its first entry is live. Looks before
    /// it mutates: a wake-up's heaps have a live top or none, and a mutating access to
    /// `heaps[heap]` checks that the array is unique first (callgrind: 4 heaps a wake-up, 160
    /// instructions).
    @inline(__always)
    private mutating func dropStaleTop(_ heap: Int) {
        guard let top = heaps[heap].first, !isLive(top, in: heap) else { return }
        dropStaleEntries(heap)
    }

    @inline(never)  // off the wake-up's path
    private mutating func dropStaleEntries(_ heap: Int) {
        while let top = heaps[heap].first, !isLive(top, in: heap) {
            heaps[heap].removeFirst()
            heaps[heap].staleCount = max(0, heaps[heap].staleCount - 1)
        }
    }
}
