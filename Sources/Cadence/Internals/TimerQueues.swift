/// A loop's armed timers: the table of timer slots and, per run loop mode, the heaps that order
/// them, plus the registry of modes.
///
/// Per mode, timers without tolerance sit in one heap by fire date; timers with tolerance sit in
/// a second heap by fire date and in a third by the end of their window. A timer without
/// tolerance has its window end at its fire date, so the first heap serves for both and such a
/// timer costs one heap operation to arm and to fire, and none to cancel (its entry goes stale;
/// see ``TimerHeap``).
///
/// Mode names are interned to small indices when a timer is created, so arming and firing never
/// hash a string. Index 0 is `default`, index 1 is the `common` pseudo-mode.
struct TimerQueues {
    static let defaultIndex = 0
    static let commonIndex = 1

    /// The three heaps of a mode, at `heaps[3 * mode + kind]`.
    private enum Kind: Int, CaseIterable {
        case exact, tolerant, windows
    }

    private var heaps = [TimerHeap](repeating: TimerHeap(), count: 2 * Kind.allCases.count)
    private var slots: ContiguousArray<TimerSlot> = []
    private var freeSlots: [UInt32] = []
    private var indexByName: [RunLoopMode: Int] = [.default: 0, .common: 1]
    /// Whether each mode is registered as common (`common` itself is not a mode to run in).
    private var isCommon = [true, false]
    private var nextSequence: UInt32 = 0
    /// After every generation handed out so far (in wrapping order): slots made after the table
    /// was emptied start here, so that no id of an earlier timer names them until the counter
    /// has gone all the way round (2³² generations later).
    private var nextGeneration: UInt32
    /// Entries of timers queued during the pass being fired, held out of their heaps until it ends.
    private var deferred: [(entry: TimerHeapEntry, heap: Int)] = []
    /// The due entries that a pass took out of its heaps at once, in fire order, and how many of
    /// them it has fired.
    private var taken: ContiguousArray<TimerHeapEntry> = []
    private var takenNext = 0

    /// The fewest due timers a pass takes out of their heaps at once (see ``beginPass(runningIn:now:)``).
    static let takeAllMinimum = 256
    /// How many timers are armed, in all modes.
    private(set) var count = 0

    init(firstGeneration: UInt32 = 1) { nextGeneration = firstGeneration }

    // MARK: Modes

    /// The index of a registered mode. (Inlined, as ``isArmed(_:)``: called on the loop's stored
    /// `queues` through an opaque call, a non-mutating method gets a copy, every array retained.)
    @inline(__always)
    func index(of mode: RunLoopMode) throws(CadenceError) -> Int {
        // The built-in modes, by far the most used, need no checks, compare or hash.
        if let builtin = mode.builtinIndex { return builtin }
        guard mode.isWellFormed else { throw .invalidArgument }
        guard let index = indexByName[mode] else { throw .unknownMode }
        return index
    }

    /// Registers a mode (idempotent); `common: true` also makes it a common mode.
    mutating func register(_ mode: RunLoopMode, common: Bool) throws(CadenceError) {
        guard mode.isWellFormed, mode != .common else { throw .invalidArgument }
        if let index = indexByName[mode] {
            if common { isCommon[index] = true }
            return
        }
        indexByName[mode] = isCommon.count
        heaps += [TimerHeap](repeating: TimerHeap(), count: Kind.allCases.count)
        isCommon.append(common)
    }

    // MARK: Timers

    /// Arms a timer in a free slot (the table grows only when none is free) and queues it.
    mutating func arm(fireDate: Nanoseconds, interval: Nanoseconds, tolerance: Nanoseconds,
                      missedTicks: MissedTickPolicy, modeIndex: Int, action: TimerAction) -> TimerID {
        let slot: UInt32
        if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slot = UInt32(slots.count)
            let capacity = slots.capacity
            slots.append(TimerSlot(generation: nextGeneration))
            if slots.capacity != capacity {
                FreedMemory.release(afterGrowingTo: slots.capacity * MemoryLayout<TimerSlot>.stride)
            }
        }
        let index = Int(slot)
        slots[index].fireDate = fireDate
        slots[index].interval = interval
        slots[index].tolerance = tolerance
        slots[index].missedTicks = missedTicks
        slots[index].modeIndex = Int32(modeIndex)
        slots[index].action = action
        slots[index].isArmed = true
        count += 1
        enqueue(slot)
        return TimerID(slot: slot, generation: slots[index].generation)
    }

    /// Whether `id` names a timer that is still armed.
    @inline(__always)
    func isArmed(_ id: TimerID) -> Bool {
        Int(id.slot) < slots.count && slots[Int(id.slot)].generation == id.generation
    }

    /// Cancels an armed timer and moves its action to `action`, for the caller to release outside
    /// the lock (what it captured may call back into the loop when freed); false if `id` is not
    /// armed.
    mutating func disarm(_ id: TimerID, releasing action: inout TimerAction) -> Bool {
        guard isArmed(id) else { return false }
        let index = Int(id.slot)
        if slots[index].isQueued {
            slots[index].isQueued = false
            let mode = Int(slots[index].modeIndex)
            if slots[index].tolerance == 0 {
                noteStale(heap(mode, .exact))
            } else {
                noteStale(heap(mode, .tolerant))
                noteStale(heap(mode, .windows))
            }
        }
        free(id.slot, releasing: &action)
        return true
    }

    /// A pass in progress: the mode it runs in, whether common timers take part, the first
    /// sequence of the pass (timers queued from then on wait for the next pass), and whether its
    /// due timers were taken out of their heaps at the start.
    struct Pass {
        let mode: Int
        let withCommon: Bool
        let firstSequence: UInt32
        var tookAll = false
    }

    /// Starts a pass in `mode` at `now`. What is due is taken one timer at a time by
    /// ``fireNext(in:now:into:)``, so each timer's slot is touched once; what a callback arms
    /// meanwhile waits for the next pass (libuv issue 4245), as if the due set had been taken at
    /// the start.
    ///
    /// When at least half the entries of the pass's heaps are due, and at least
    /// ``takeAllMinimum``, the pass does take them all at the start: out of their heaps in one
    /// sweep each, then sorted (``FireOrder``). Popping them one at a time would cost O(log n)
    /// scattered steps each (about 150 ns at 10⁵ timers, most of a fire); the sweep and the sort
    /// cost a few sequential ones. This happens when a loop gets to its timers late, or many
    /// timers share a fire date.
    mutating func beginPass(runningIn mode: Int, now: Nanoseconds) -> Pass {
        var pass = Pass(mode: mode, withCommon: isCommon[mode], firstSequence: nextSequence)
        let limit = min(now, .max - 1)  // a saturated fire date is never due
        var total = 0
        forEachHeap(of: pass) { heap in total += heaps[heap].count }
        let enough = max(Self.takeAllMinimum, (total + 1) / 2)
        var due = 0  // counted up to `enough` only
        forEachHeap(of: pass) { heap in due += heaps[heap].countKeys(notAfter: limit, upTo: enough - due) }
        guard due >= enough else { return pass }
        taken.reserveCapacity(total)
        forEachHeap(of: pass) { heap in
            heaps[heap].removeKeys(notAfter: limit, into: &taken)
            // Stale entries may have left with the due ones; an overcount only brings the next
            // rebuild forward, which counts again from zero.
            heaps[heap].staleCount = min(heaps[heap].staleCount, heaps[heap].count)
        }
        FireOrder.sort(&taken)
        pass.tookAll = true
        return pass
    }

    /// A timer taken to be fired: its action, the fire date to report and the grid points skipped.
    /// (Filled in place rather than returned as an optional: the runtime destroys an optional
    /// holding a closure through generic value witnesses, which cost more than the rest of a fire.)
    struct Fire {
        var id = TimerID(slot: 0, generation: 0)
        var action = TimerAction.idle
        var fireDate: Nanoseconds = 0
        var skipped: UInt64 = 0
    }

    /// Takes the next timer of the pass due at `now` (in fire-date order, ties in scheduling
    /// order) into `fire` and fires it: a repeating one moves to its next fire date and is queued
    /// again, a one-shot ends. False when nothing more is due in this pass.
    mutating func fireNext(in pass: Pass, now: Nanoseconds, into fire: inout Fire) -> Bool {
        if pass.tookAll { return fireNextTaken(now: now, into: &fire) }
        while true {
            var source = heap(pass.mode, .exact)
            var next = heaps[source].first
            consider(heap(pass.mode, .tolerant), &source, &next)
            if pass.withCommon {
                consider(heap(Self.commonIndex, .exact), &source, &next)
                consider(heap(Self.commonIndex, .tolerant), &source, &next)
            }
            // A fire date that saturated (a virtual clock pushed ~584 years) is never due.
            guard let next, next.key <= now, next.key != .max else { return false }
            heaps[source].removeFirst()
            guard isLive(next, in: source) else {
                heaps[source].staleCount = max(0, heaps[source].staleCount - 1)
                continue
            }
            if Int32(bitPattern: next.sequence &- pass.firstSequence) >= 0 {
                deferred.append((next, source))  // queued during this pass
                continue
            }
            take(next, now: now, into: &fire)
            return true
        }
    }

    /// ``fireNext(in:now:into:)`` for a pass that took its due timers at the start. A taken entry
    /// has left its heap, so it is checked against its timer's slot alone: it is live if the timer
    /// is still queued under the entry's sequence at the entry's date (not if a callback or
    /// another thread has cancelled it since).
    private mutating func fireNextTaken(now: Nanoseconds, into fire: inout Fire) -> Bool {
        while takenNext < taken.count {
            let entry = taken[takenNext]
            takenNext += 1
            guard isLiveTaken(entry) else { continue }
            take(entry, now: now, into: &fire)
            return true
        }
        return false
    }

    private func isLiveTaken(_ entry: TimerHeapEntry) -> Bool {
        let index = Int(entry.slot)
        return index < slots.count && slots[index].isQueued && slots[index].sequence == entry.sequence
            && slots[index].fireDate == entry.key
    }

    /// Takes the live timer of `entry`, which has left its heap, into `fire`: a repeating one
    /// moves to its next fire date and is queued again, a one-shot ends.
    private mutating func take(_ entry: TimerHeapEntry, now: Nanoseconds, into fire: inout Fire) {
        let index = Int(entry.slot)
        slots[index].isQueued = false
        if slots[index].tolerance > 0 { noteStale(heap(Int(slots[index].modeIndex), .windows)) }
        fire.id = TimerID(slot: entry.slot, generation: slots[index].generation)
        (fire.fireDate, fire.skipped) = slots[index].advance(now: now)
        if slots[index].interval == 0 {
            free(entry.slot, releasing: &fire.action)
            return
        }
        fire.action = slots[index].action
        enqueue(entry.slot)
    }

    /// Ends a pass: the timers queued during it go back to their heaps (and so would taken ones
    /// that it did not get to).
    mutating func endPass() {
        for (entry, heap) in deferred where isLive(entry, in: heap) { heaps[heap].insert(entry) }
        deferred.removeAll(keepingCapacity: true)
        for entry in taken[takenNext...] where isLiveTaken(entry) {
            let index = Int(entry.slot)
            heaps[heap(Int(slots[index].modeIndex), slots[index].tolerance == 0 ? .exact : .tolerant)].insert(entry)
        }
        taken = []  // and its memory: such passes are rare and can be large
        takenNext = 0
    }

    /// When to wake next while running in `mode`: let D be the earliest end of a tolerance
    /// window among the eligible timers; wake at the latest fire date not after D. Every timer due
    /// by then fires in that wake-up, each within its window, and a lone timer fires on time. This
    /// greedy choice stabs every window with as few wake-ups as any schedule can.
    mutating func nextWake(runningIn mode: Int) -> Nanoseconds? {
        let withCommon = isCommon[mode]
        var limit = windowEnd(mode)
        if withCommon, let common = windowEnd(Self.commonIndex) { limit = min(limit ?? common, common) }
        guard let limit else { return nil }
        var wake = latestFireDate(mode, notAfter: limit)
        if withCommon, let common = latestFireDate(Self.commonIndex, notAfter: limit) {
            wake = max(wake ?? common, common)
        }
        return wake
    }

    /// Ends every timer and returns their actions, for the caller to release outside the lock.
    mutating func removeAll() -> [TimerAction] {
        var actions: [TimerAction] = []
        for index in slots.indices {
            if slots[index].isArmed { actions.append(slots[index].action) }
            noteGeneration(slots[index].generation)
        }
        slots.removeAll()
        freeSlots.removeAll()
        deferred.removeAll()
        for index in heaps.indices { heaps[index] = TimerHeap() }
        count = 0
        return actions
    }

    // MARK: Helpers

    /// Moves ``nextGeneration`` past `generation` if it is not already: compared as serial numbers
    /// (RFC 1982), so that the counter keeps going when it wraps.
    private mutating func noteGeneration(_ generation: UInt32) {
        if Int32(bitPattern: generation &- nextGeneration) >= 0 { nextGeneration = generation &+ 1 }
    }

    /// Whether an entry of `heap` still stands for its timer: the slot holds the timer queued
    /// under this entry's sequence, in this heap, at this key. A later timer in the slot, or a
    /// later enqueue of the same timer, has another sequence; sequences are kept to 32 bits, and
    /// should a stale entry ever match all of this, it names the slot's timer at that timer's own
    /// date, so taking it is still right (the timer's other entry then goes stale).
    private func isLive(_ entry: TimerHeapEntry, in heap: Int) -> Bool {
        let index = Int(entry.slot)
        guard index < slots.count, slots[index].isQueued, slots[index].sequence == entry.sequence else {
            return false
        }
        let mode = Int(slots[index].modeIndex)
        let tolerance = slots[index].tolerance
        if tolerance == 0 { return heap == self.heap(mode, .exact) && entry.key == slots[index].fireDate }
        if heap == self.heap(mode, .tolerant) { return entry.key == slots[index].fireDate }
        return heap == self.heap(mode, .windows) && entry.key == slots[index].fireDate.saturatingAdd(tolerance)
    }

    private mutating func enqueue(_ slot: UInt32) {
        let index = Int(slot)
        let mode = Int(slots[index].modeIndex)
        let entry = TimerHeapEntry(key: slots[index].fireDate, sequence: nextSequence, slot: slot)
        nextSequence &+= 1  // wraps: see `TimerHeapEntry`
        slots[index].sequence = entry.sequence
        slots[index].isQueued = true
        let tolerance = slots[index].tolerance
        if tolerance == 0 {
            heaps[heap(mode, .exact)].insert(entry)
        } else {
            heaps[heap(mode, .tolerant)].insert(entry)
            heaps[heap(mode, .windows)].insert(TimerHeapEntry(key: entry.key.saturatingAdd(tolerance),
                                                        sequence: entry.sequence, slot: slot))
        }
    }

    /// Ends the timer in `slot` (no longer queued) and moves its action to `action`.
    private mutating func free(_ slot: UInt32, releasing action: inout TimerAction) {
        let index = Int(slot)
        swap(&action, &slots[index].action)
        slots[index].action = .idle
        slots[index].isArmed = false
        slots[index].generation &+= 1
        noteGeneration(slots[index].generation)
        freeSlots.append(slot)
        count -= 1
        if count == 0 {
            // Start again from slot 0, so that the next timers sit side by side in memory instead of
            // wherever the last ones ended (a cancel in random order leaves the free list shuffled).
            // Each slot dropped here was made by an arm, so this costs O(1) per arm. Every heap
            // entry left is stale.
            slots.removeAll(keepingCapacity: true)
            freeSlots.removeAll(keepingCapacity: true)
            for index in heaps.indices { heaps[index].removeAll() }
        }
    }

    @inline(__always)
    private func heap(_ mode: Int, _ kind: Kind) -> Int { Kind.allCases.count * mode + kind.rawValue }

    /// Calls `body` with each heap whose timers fire in `pass` (by fire date; not the windows).
    @inline(__always)
    private func forEachHeap(of pass: Pass, _ body: (Int) -> Void) {
        body(heap(pass.mode, .exact))
        body(heap(pass.mode, .tolerant))
        if pass.withCommon {
            body(heap(Self.commonIndex, .exact))
            body(heap(Self.commonIndex, .tolerant))
        }
    }

    /// Drops stale entries from the top of a heap, so that its first entry is live.
    private mutating func dropStaleTop(_ heap: Int) {
        while let top = heaps[heap].first, !isLive(top, in: heap) {
            heaps[heap].removeFirst()
            heaps[heap].staleCount = max(0, heaps[heap].staleCount - 1)
        }
    }

    /// Counts one more stale entry in a heap, rebuilding it once stale entries make up three
    /// quarters of it. (At half, cancelling 10⁵ timers in random order read each timer's slot
    /// twice more in rebuilds; at three quarters, a third more: measured 6.6 → 5.1 data cache
    /// misses and 436 → 380 instructions per cancel.)
    private mutating func noteStale(_ heap: Int) {
        heaps[heap].staleCount += 1
        guard heaps[heap].staleCount > 32, heaps[heap].staleCount * 4 > heaps[heap].count * 3 else { return }
        var live = ContiguousArray<TimerHeapEntry>()
        live.reserveCapacity(heaps[heap].count - heaps[heap].staleCount)
        for entry in heaps[heap].entries where isLive(entry, in: heap) { live.append(entry) }
        heaps[heap].rebuild(from: live)
    }

    /// Makes `heap`'s first entry the candidate if it comes before the current one.
    @inline(__always)
    private func consider(_ heap: Int, _ source: inout Int, _ next: inout TimerHeapEntry?) {
        guard let entry = heaps[heap].first, next.map({ entry.precedes($0) }) ?? true else { return }
        source = heap
        next = entry
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

}
