import CLibUV

/// The firing pass: what is due at a pass's clock reading, taken in fire-date order.
extension TimerQueues {
    /// A pass in progress: the mode it runs in, whether common timers take part, the first
    /// scheduling sequence of the pass (timers armed or reset from then on wait for the next
    /// pass), and whether its due timers were taken out of their heaps at the start.
    struct Pass {
        let mode: Int
        let withCommon: Bool
        let firstSequence: UInt32
        var tookAll = false
        /// The kind of one-shots that go into a batch (FireBatch.swift; 0: no batch): such a
        /// one-shot stays armed when taken, out of its heaps, until the loop ends it once its call
        /// has started.
        var batchKind: UInt = 0
        /// Whether a batch waits to be handed over before the next timer is called: a timer
        /// outside the batch taken now is left as it was, armed and not advanced (``Fire/isHeld``),
        /// so that the batch's calls cancel, reset and read it as any other pending timer
        /// (cadence_cancel: once it returns, no callback starts).
        var batchWaits = false
    }

    /// Starts a pass in `mode` at `now`. What is due is taken one timer at a time by
    /// ``fireNext(in:now:into:)``, so each timer's slot is touched once; what a callback arms
    /// meanwhile waits for the next pass (libuv issue 4245), as if the due set had been taken at
    /// the start.
    ///
    /// When the pass's heaps hold at least ``takeAllMinimum`` entries, more than a core's L2 cache,
    /// and at least half of them are due, the pass does take them all at the start: out of their
    /// heaps in one sweep each, then sorted (``FireOrder``). Popping them one at a time from heaps
    /// that large costs O(log n) steps each that miss the cache (fire's mean at 10⁶ timers 221 ns
    /// against 169 then, 58-60 now); the sweep and the sort cost a few sequential ones, but all in
    /// the pass's first fire (about 20 ns per due timer), so smaller heaps, whose steps hit the
    /// cache, pop: no fire waits for the ordering of 10⁵ others. This happens when a loop gets to
    /// its timers late, or many timers share a fire date. The entries are taken in the largest
    /// heap's own buffer, which goes back to it when the pass ends (a fresh buffer would have its
    /// pages faulted in at each such pass: at 10⁷ timers, 8-18 ns per timer, the fire's mean 130
    /// ns to about 105 with the prefetch below); and the pass asks for each timer's slot a few
    /// fires before its own.
    mutating func beginPass(runningIn mode: Int, now: Nanoseconds) -> Pass {
        var pass = Pass(mode: mode, withCommon: isCommon[mode], firstSequence: nextSequence)
        let limit = min(now, .max - 1)  // a saturated fire date is never due
        var total = 0
        forEachHeap(of: pass) { heap in total += heaps[heap].count }
        guard total >= takeAllMinimum else { return pass }
        let enough = (total + 1) / 2
        var due = 0  // counted up to `enough` only
        forEachHeap(of: pass) { heap in due += heaps[heap].countKeys(notAfter: limit, upTo: enough - due) }
        guard due >= enough else { return pass }
        // The largest heap's buffer becomes the taken entries' (TimerHeap.takeKeys); the other
        // heaps' due entries join them.
        var largest = heap(mode, .exact)
        forEachHeap(of: pass) { heap in if heaps[heap].count > heaps[largest].count { largest = heap } }
        taken = heaps[largest].takeKeys(notAfter: limit)
        takenFrom = largest
        taken.reserveCapacity(total)
        forEachHeap(of: pass) { heap in
            if heap != largest { heaps[heap].removeKeys(notAfter: limit, into: &taken) }
            // Stale entries may have left with the due ones; an overcount only brings the next
            // rebuild forward, which counts again from zero.
            heaps[heap].staleCount = min(heaps[heap].staleCount, heaps[heap].count)
        }
        FireOrder.sort(&taken)
        pass.tookAll = true
        return pass
    }

    /// A timer taken to be fired: its action, the fire date to report, the grid points skipped,
    /// and whether this is the timer's last call (a one-shot's fire).
    /// (Filled in place rather than returned as an optional: the runtime destroys an optional
    /// holding a closure through generic value witnesses, which cost more than the rest of a fire.)
    struct Fire {
        var id = TimerID(slot: 0, generation: 0)
        var action = TimerAction.idle
        var fireDate: Nanoseconds = 0
        var skipped: UInt64 = 0
        var isFinal = false
        /// A one-shot of the pass's ``Pass/batchKind``, left armed (its action stays in its
        /// slot): the loop ends it with ``endKept(_:)``.
        var isKept = false
        /// A timer outside the batch taken while a batch waited (``Pass/batchWaits``), left armed,
        /// out of its heaps and not advanced: the loop takes it with ``takeHeld(_:now:)`` once the
        /// batch has been handed over, and calls it unless a call of the batch cancelled or reset
        /// it meanwhile.
        var isHeld = false
    }

    /// Takes the next timer of the pass due at `now` (in fire-date order, ties in scheduling
    /// order) into `fire` and fires it: a repeating one moves to its next fire date and is queued
    /// again, a one-shot ends. False when nothing more is due in this pass.
    mutating func fireNext(in pass: Pass, now: Nanoseconds, into fire: inout Fire) -> Bool {
        if pass.tookAll { return fireNextTaken(in: pass, now: now, into: &fire) }
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
            // The next fire's likely timer: its slot comes in while this fire goes on (popping
            // at 10⁵ timers: fire's mean 166-175 ns to 161-167, as taking all gives).
            if let following = heaps[source].first { prefetchSlot(Int(following.slot)) }
            guard isLive(next, in: source) else {
                heaps[source].staleCount = max(0, heaps[source].staleCount - 1)
                continue
            }
            if queuedDuring(pass, next) {
                deferred.append((next, source))
                continue
            }
            take(next, in: pass, now: now, into: &fire)
            return true
        }
    }

    /// The pass of the common case, whole: of the heaps whose timers fire in `mode`, one heap of
    /// timers without tolerance has every entry (``loneHeap(_:)``), and at most one live timer is
    /// due at `now`, at its top. Takes that one into `fire` (true) or finds none due (false); nil
    /// when the pass is not that case, for ``beginPass(runningIn:now:)`` and
    /// ``fireNext(in:now:into:)``. End it with ``endLonePass()``.
    mutating func fireLone(runningIn mode: Int, now: Nanoseconds, into fire: inout Fire) -> Bool? {
        guard taken.isEmpty, let exact = loneHeap(mode) else { return nil }
        guard let top = heaps[exact].first, top.key <= now, top.key != .max else { return false }
        guard !heaps[exact].hasSecond(notAfter: now), isLive(top, in: exact) else { return nil }
        heaps[exact].removeFirst()
        take(top, in: Pass(mode: mode, withCommon: false, firstSequence: nextSequence), now: now, into: &fire)
        return true
    }

    /// The one heap that has entries (live or stale) among those whose timers fire in `mode`,
    /// if it is a heap of timers without tolerance: `mode`'s own, or `common`'s while `mode` is a
    /// common mode (a program whose only timers are its tasks' sleeps on ``LoopClock``); nil
    /// if another has entries too.
    @inline(__always)
    func loneHeap(_ mode: Int) -> Int? {
        let own = heap(mode, .exact)
        guard heaps[own + 1].count == 0, heaps[own + 2].count == 0 else { return nil }
        guard isCommon[mode] else { return own }
        let common = heap(Self.commonIndex, .exact)
        guard heaps[common + 1].count == 0, heaps[common + 2].count == 0 else { return nil }
        if heaps[common].count == 0 { return own }
        return heaps[own].count == 0 ? common : nil
    }

    /// Ends a pass of ``fireLone(runningIn:now:into:)``.
    @inline(__always)
    mutating func endLonePass() {
        if deferred.isEmpty { noteQuietPassEnd() } else { endPass() }
    }

    /// Whether `entry` was armed or reset during `pass`: its sequence lies in the (short) run
    /// handed out since the pass began. Measured as a distance from the pass's first sequence, so
    /// an entry that has waited through any number of arms is not mistaken for a new one
    /// (compared as serial numbers, one armed 2³¹ arms earlier would look like it came after, and
    /// would be held back from every pass while the loop spun on its overdue date); one armed a
    /// multiple of 2³² arms before waits one pass, at the same clock reading. The other way to be
    /// queued during a pass, a re-queue after a fire of this pass, keeps the timer's sequence:
    /// ``take(_:in:now:into:)`` holds such an entry back itself when it is due again at once.
    @inline(__always)
    func queuedDuring(_ pass: Pass, _ entry: TimerHeapEntry) -> Bool {
        entry.sequence &- pass.firstSequence < nextSequence &- pass.firstSequence
    }

    /// ``fireNext(in:now:into:)`` for a pass that took its due timers at the start. A taken entry
    /// has left its heap, so it is checked against its timer's slot alone: it is live if the timer
    /// is still queued under the entry's sequence at the entry's date (not if a callback or
    /// another thread has cancelled it since).
    private mutating func fireNextTaken(in pass: Pass, now: Nanoseconds, into fire: inout Fire) -> Bool {
        while takenNext < taken.count {
            let entry = taken[takenNext]
            if takenNext + Self.prefetchDistance < taken.count {
                prefetchSlot(Int(taken[takenNext + Self.prefetchDistance].slot))
            }
            takenNext += 1
            guard isLiveTaken(entry) else { continue }
            take(entry, in: pass, now: now, into: &fire)
            return true
        }
        return false
    }

    /// How many taken entries ahead of the one firing a pass asks for the slot of (and how many
    /// handles ahead of its cancel a batch of cancels does: ``Loop/cancelHandles(_:_:outcomes:releasing:)``).
    static let prefetchDistance = 8

    /// Asks for the cache lines of slot `index` (a slot may straddle two) without waiting for
    /// them. Mutating only so that no caller copies the queues: called as a non-mutating method
    /// from the loop of a take-all pass, it copied them whole (every array retained and released)
    /// once per fire, about 360 instructions (callgrind).
    @inline(__always)
    mutating func prefetchSlot(_ index: Int) {
        guard index < slots.count else { return }
        slots.withUnsafeBufferPointer { table in
            let slot = table.baseAddress! + index
            prefetch_for_write(slot)
            prefetch_for_write(UnsafePointer<UInt8>(OpaquePointer(slot)) + MemoryLayout<TimerSlot>.size - 1)
        }
    }

    /// ``isLive(_:in:)`` for an entry taken from its slot's fire-date heap, whichever it is:
    /// there, an entry is live when its sequence and key are its queued timer's.
    private func isLiveTaken(_ entry: TimerHeapEntry) -> Bool {
        let index = Int(entry.slot)
        guard index < slots.count else { return false }
        let slot = slots[index]  // read once: plain data, 40 bytes
        return slot.isQueued && slot.sequence == entry.sequence && slot.fireDate == entry.key
    }

    /// Takes the live timer of `entry`, which has left its heap, into `fire`: a repeating one
    /// moves to its next fire date and is queued again (held back until the pass ends if that
    /// date is already due, as a burst's next missed tick is), a one-shot ends, unless it is one of
    /// the pass's batch function, which is kept armed and unqueued (``Fire/isKept``).
    private mutating func take(_ entry: TimerHeapEntry, in pass: Pass, now: Nanoseconds, into fire: inout Fire) {
        let index = Int(entry.slot)
        slots[index].isQueued = false
        let kept = timing(of: slots[index])
        if kept.tolerance > 0 { noteStale(heap(Int(slots[index].modeIndex), .windows)) }
        fire.id = TimerID(slot: entry.slot, generation: slots[index].generation)
        fire.isFinal = kept.interval == 0
        fire.isKept = false
        fire.isHeld = false
        if fire.isFinal, pass.batchKind != 0, action(at: index).batchWord(kind: pass.batchKind) != nil {
            (fire.fireDate, fire.skipped) = (slots[index].fireDate, 0)
            fire.isKept = true
            return
        }
        if pass.batchWaits {
            fire.isHeld = true
            return
        }
        finishTake(index, timing: kept, now: now, into: &fire)
    }

    /// Fires the taken timer in slot `index` into `fire`: a repeating one moves to its next fire
    /// date and is queued again (held back until the pass ends if that date is already due, as a
    /// burst's next missed tick is), a one-shot ends.
    private mutating func finishTake(_ index: Int, timing kept: Timing, now: Nanoseconds, into fire: inout Fire) {
        (fire.fireDate, fire.skipped) = slots[index].advance(now: now, interval: kept.interval, tolerance: kept.tolerance)
        if fire.isFinal {
            free(UInt32(index), releasing: &fire.action)
            return
        }
        fire.action = action(at: index)
        enqueue(UInt32(index), deferring: slots[index].fireDate <= now)
    }

    /// Whether `id` is a timer a pass took and left armed (a one-shot kept for the batch,
    /// ``Fire/isKept``, or a held timer, ``Fire/isHeld``) that nothing has cancelled or reset since
    /// (either queues or frees it).
    @inline(__always)
    func isKept(_ id: TimerID) -> Bool { isArmed(id) && !slots[Int(id.slot)].isQueued }

    /// Ends a kept one-shot whose call has started: its action goes without a release (the call
    /// was its last). False if it is no longer kept.
    mutating func endKept(_ id: TimerID) -> Bool {
        guard isKept(id) else { return false }
        var action = TimerAction.idle
        free(id.slot, releasing: &action)
        return true
    }

    /// Takes a held timer (``Fire/isHeld``) as the pass would have, into `fire`, for its call;
    /// false if a cancel or reset took it meanwhile.
    mutating func takeHeld(_ fire: inout Fire, now: Nanoseconds) -> Bool {
        guard isKept(fire.id) else { return false }
        let index = Int(fire.id.slot)
        finishTake(index, timing: timing(of: slots[index]), now: now, into: &fire)
        return true
    }

    /// Ends a pass: the timers queued during it go back to their heaps (and so would taken ones
    /// that it did not get to).
    mutating func endPass() {
        for (entry, heap) in deferred where isLive(entry, in: heap) { heaps[heap].insert(entry) }
        deferred.removeAll(keepingCapacity: true)
        for entry in taken[takenNext...] where isLiveTaken(entry) {
            heaps[fireDateHeap(of: Int(entry.slot))].insert(entry)
        }
        // The buffer goes back to its heap, pages and all, so that arming as many timers again
        // neither grows that heap nor faults its pages in (its memory then goes as any heap's).
        // Only after a pass that took one: every other pass, each wake-up's, skips the heap.
        if taken.capacity > 0 { heaps[takenFrom].adoptBuffer(&taken) }
        takenNext = 0
        noteQuietPassEnd()
    }

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

    /// Makes `heap`'s first entry the candidate if it comes before the current one.
    @inline(__always)
    private func consider(_ heap: Int, _ source: inout Int, _ next: inout TimerHeapEntry?) {
        guard let entry = heaps[heap].first, next.map({ entry.precedes($0) }) ?? true else { return }
        source = heap
        next = entry
    }
}
