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
///
/// Memory per armed timer: a 40-byte slot (TimerSlot.swift: two words of the action and its kind,
/// the small fields as bits, the fire date) and a 16-byte heap entry, 56 bytes; a repeating or
/// tolerant timer adds a 16-byte ``Timing``, and the action's third word, which timers share (a
/// C callback's release function is its loop's), is kept once by tag (``sharedWords``). Measured
/// with `CadenceBench mem` (N = 10⁶, the program's 16-byte handles included): 128 bytes per timer
/// with a 96-byte slot (a closure field beside the C words, interval and tolerance in every
/// slot), 96 with a 64-byte one, 80 with a 48-byte one (the third word in every slot), 72 now;
/// libuv's `uv_timer_t` program, 152.
struct TimerQueues {
    static let defaultIndex = 0
    static let commonIndex = 1
    /// How many modes a loop can have, `default` and `common` included (a slot's 16-bit index).
    static let modeLimit = 1 << 16

    /// A repeating or tolerant timer's interval and tolerance (ns).
    struct Timing {
        var interval: Nanoseconds = 0
        var tolerance: Nanoseconds = 0
    }

    /// The three heaps of a mode, at `heaps[3 * mode + kind]`.
    enum Kind: Int, CaseIterable {
        case exact, tolerant, windows

        /// `allCases.count` as a constant: the array `allCases` makes is folded away only in an
        /// optimised build, and ``heap(_:_:)`` runs on every start, cancel and fire.
        static let count = 3
    }

    // The storage that the firing pass (TimerQueues+Pass.swift) and the wake-up rule
    // (TimerQueues+Wake.swift) use is internal rather than private for them alone.
    var heaps = [TimerHeap](repeating: TimerHeap(), count: 2 * Kind.count)
    var slots: ContiguousArray<TimerSlot> = []
    /// The intervals and tolerances of armed timers that have one (``TimerSlot/timing``); entry 0
    /// stands for none. Kept out of the slots, which most timers (one-shots without tolerance)
    /// would fill with zeros: 16 bytes a slot.
    private(set) var timings: ContiguousArray<Timing> = [Timing()]
    private var freeTimings: [UInt32] = []
    /// The third words of armed timers' actions, which timers share (a C callback's is its
    /// loop's release function: one or two a loop), by the tag their slots keep
    /// (``StoredAction``); tag 0 is the word 0. See ``tag(for:)``.
    private(set) var sharedWords: [UInt] = [0]
    /// How many armed timers keep each tag (tag 0's is not counted): a tag that none keeps is free
    /// for a new word once every tag is taken.
    private var tagUses = [Int](repeating: 0, count: StoredAction.tagLimit)
    /// The tag that ``tag(for:)`` found last: the loop's current release function, as a rule.
    private var lastTag = 0
    private var freeSlots: [UInt32] = []
    /// How many slots, from 0, timers have taken since the table last emptied; the slots past
    /// them are kept only for their generations, and the next timers take them in order.
    var madeSlots = 0
    /// The generations that slots made from now on start at, by index (1 past the end): those of
    /// the slots of this loop's predecessor in its registry place, so that no handle of that
    /// loop names a timer of this one (TimerQueues+Generations.swift); after ``removeAll()`` or
    /// ``giveSlotsBack()``, this loop's own.
    var inheritedGenerations = SlotGenerations()
    private var indexByName: [RunLoopMode: Int] = [.default: 0, .common: 1]
    /// Whether each mode is registered as common (`common` itself is not a mode to run in).
    var isCommon = [true, false]
    /// The scheduling sequence that the next arm or reset gives its timer (wraps: see
    /// ``TimerHeapEntry``).
    var nextSequence: UInt32 = 0
    /// Entries of timers queued during the pass being fired, held out of their heaps until it ends.
    var deferred: [(entry: TimerHeapEntry, heap: Int)] = []
    /// The due entries that a pass took out of its heaps at once, in fire order, and how many of
    /// them it has fired.
    var taken: ContiguousArray<TimerHeapEntry> = []
    var takenNext = 0
    /// The heap whose buffer ``taken`` is (``TimerHeap/takeKeys(notAfter:)``), to which it goes
    /// back when the pass ends.
    var takenFrom = 0
    /// How many times the table has emptied (``restartFromFirstSlot()``), and the count at the
    /// end of the last pass; and how many pass ends in a row have found it empty with no emptying
    /// between them (nothing armed since): see ``noteQuietPassEnd()``.
    var emptyings = 0
    var emptyingsAtLastPassEnd = 0
    var quietPassEnds = 0

    /// The fewest entries a pass's heaps hold for the pass to take its due timers out of them at
    /// once (see ``beginPass(runningIn:now:)``): ``defaultTakeAllMinimum``, which tests lower to
    /// take all with a few hundred timers.
    var takeAllMinimum = TimerQueues.defaultTakeAllMinimum
    /// 2¹⁷ entries: 2 MB of heap, a core's L2 cache here. Measured (`bench scale`, C, all N timers
    /// due at once, mean per fire and p99.9 of batches of 1,000): popping at 10⁴ 137-142 ns against
    /// taking all 145-148; at 10⁵ 162-170 against 153-162, p99.9 0.56-0.64 µs against 2.9-3.3 (the
    /// batch that orders them all); at 2·10⁵ 219 against 177; at 10⁶ 221 against 169.
    static let defaultTakeAllMinimum = 1 << 17
    /// How many timers are armed, in all modes.
    private(set) var count = 0
    /// How many slots a C handle holds (TimerQueues+Handles.swift), armed or ended.
    var heldCount = 0
    /// How many armed timers are referenced, per mode index (TimerQueues+References.swift).
    let referencedCount = ModeCounters(count: 2)

    // MARK: Modes

    /// The index of a registered mode. (Inlined, as ``isArmed(_:)``: called on the loop's stored
    /// `queues` through an opaque call, a non-mutating method gets a copy, every array retained.)
    @inline(__always)
    func index(of mode: RunLoopMode) throws(CadenceError) -> Int {
        // The built-in modes, by far the most used, need no checks, compare or hash.
        if let builtin = mode.builtinIndex { return builtin }
        guard mode.isWellFormed else { throw .malformedMode(mode) }
        guard let index = indexByName[mode] else { throw .unregisteredMode(mode) }
        return index
    }

    /// Registers a mode (idempotent); `common: true` also makes it a common mode.
    mutating func register(_ mode: RunLoopMode, common: Bool) throws(CadenceError) {
        guard mode.isWellFormed else { throw .malformedMode(mode) }
        guard mode != .common else { throw .commonModeNotAllowed("registered already") }
        if let index = indexByName[mode] {
            if common { isCommon[index] = true }
            return
        }
        guard isCommon.count < Self.modeLimit else { throw .tooManyModes(mode) }
        indexByName[mode] = isCommon.count
        heaps += [TimerHeap](repeating: TimerHeap(), count: Kind.count)
        isCommon.append(common)
        referencedCount.append()
    }

    // MARK: Timers

    /// Arms a timer in a free slot (the table grows only when none is free) and queues it.
    /// `held`: a C handle names the timer by its slot (TimerQueues+Handles.swift), which then
    /// outlives the timer until the handle is released.
    mutating func arm(fireDate: Nanoseconds, interval: Nanoseconds, tolerance: Nanoseconds,
                      missedTicks: MissedTickPolicy, modeIndex: Int, action: consuming TimerAction,
                      tag: Int? = nil, held: Bool = false) -> TimerID {
        let slot = freeSlots.popLast() ?? nextSlot()
        let index = Int(slot)
        slots[index].fireDate = fireDate
        slots[index].timing = interval == 0 && tolerance == 0 ? 0 : keepTiming(Timing(interval: interval, tolerance: tolerance))
        slots[index].missedTicks = missedTicks
        slots[index].modeIndex = UInt16(modeIndex)
        // `tag`: what ``tag(for:)`` gave the caller for the action's shared word (nil: ask it here).
        let tag = tag ?? self.tag(for: action.sharedWord)!
        slots[index].action = action.stored(tag: tag)
        if tag != 0 { tagUses[tag] &+= 1 }
        slots[index].isArmed = true
        slots[index].isReferenced = true
        slots[index].handle = held ? .held : .none
        if held { heldCount += 1 }
        referencedCount[modeIndex] &+= 1
        slots[index].sequence = nextSequence
        nextSequence &+= 1
        count += 1
        enqueue(slot)
        return TimerID(slot: slot, generation: slots[index].generation)
    }

    /// The tag of `word` in ``sharedWords``, which takes it if it is new; nil when all
    /// ``StoredAction/tagLimit`` tags are kept by armed timers. Arming calls it first (the one
    /// place it fails). Once every tag is taken (a program that has set more than 31 release
    /// functions on a loop), a word that no armed timer keeps any more leaves its tag to the
    /// next new one (``tagUses``).
    @inline(__always)
    mutating func tag(for word: UInt) -> Int? {
        if word == 0 { return 0 }  // a closure's, or a C callback's without a release function
        if sharedWords[lastTag] == word { return lastTag }
        return newTag(for: word)
    }

    @inline(never)  // off the start's path
    private mutating func newTag(for word: UInt) -> Int? {
        if let known = sharedWords.firstIndex(of: word) {
            lastTag = known
            return known
        }
        if sharedWords.count < StoredAction.tagLimit {
            sharedWords.append(word)
            lastTag = sharedWords.count - 1
        } else {
            guard let free = (1..<sharedWords.count).first(where: { tagUses[$0] == 0 }) else { return nil }
            sharedWords[free] = word
            lastTag = free
        }
        return lastTag
    }

    /// The action of the timer in slot `index`, its third word restored.
    @inline(__always)
    func action(at index: Int) -> TimerAction {
        let stored = slots[index].action
        return TimerAction(stored, shared: sharedWords[stored.tag])
    }

    /// Whether `id` names a timer that is still armed.
    @inline(__always)
    func isArmed(_ id: TimerID) -> Bool {
        Int(id.slot) < slots.count && slots[Int(id.slot)].generation == id.generation && slots[Int(id.slot)].isArmed
    }

    /// Cancels an armed timer and moves its action to `action`, for the caller to release outside
    /// the lock (what it captured may call back into the loop when freed); false if `id` is not
    /// armed.
    mutating func disarm(_ id: TimerID, releasing action: inout TimerAction) -> Bool {
        guard isArmed(id) else { return false }
        let index = Int(id.slot)
        unqueue(index)
        free(id.slot, releasing: &action)
        return true
    }

    /// Takes the timer in slot `index` out of its heaps, if it is queued: its entries go stale.
    @inline(__always)
    private mutating func unqueue(_ index: Int) {
        guard slots[index].isQueued else { return }
        slots[index].isQueued = false
        noteStale(fireDateHeap(of: index))
        if tolerance(at: index) > 0 { noteStale(heap(Int(slots[index].modeIndex), .windows)) }
    }

    /// Moves an armed timer to a new fire date (a repeating one starts a new grid there) and gives
    /// it a new scheduling sequence, so that it fires after the timers already due at that date
    /// (libuv's `uv_timer_again`, Node's `refresh()`); false if `id` is not armed. Queued during a
    /// pass, it waits for the next one.
    mutating func reset(_ id: TimerID, fireDate: Nanoseconds) -> Bool {
        guard isArmed(id) else { return false }
        let index = Int(id.slot)
        unqueue(index)
        slots[index].fireDate = fireDate
        slots[index].sequence = nextSequence
        nextSequence &+= 1
        enqueue(id.slot)
        return true
    }

    /// The next fire date, interval and tolerance of an armed timer; nil if `id` is not armed.
    func schedule(of id: TimerID) -> (fireDate: Nanoseconds, interval: Nanoseconds, tolerance: Nanoseconds)? {
        guard isArmed(id) else { return nil }
        let index = Int(id.slot)
        return (slots[index].fireDate, interval(at: index), tolerance(at: index))
    }

    /// Ends every timer and returns their actions, for the caller to release outside the lock.
    /// The table's memory goes; the generations its slots reached stay in
    /// ``inheritedGenerations``, for a successor in the loop's registry place.
    mutating func removeAll() -> [TimerAction] {
        var actions: [TimerAction] = []
        for index in slots.indices where slots[index].isArmed { actions.append(action(at: index)) }
        keepGenerations()
        sharedWords = [0]
        tagUses = [Int](repeating: 0, count: StoredAction.tagLimit)
        lastTag = 0
        slots.removeAll()
        freeSlots.removeAll()
        forgetTimings()
        madeSlots = 0
        deferred.removeAll()
        for index in heaps.indices { heaps[index] = TimerHeap() }
        count = 0
        heldCount = 0
        referencedCount.reset()
        return actions
    }

    // MARK: Helpers
    // (Internal rather than private, with the storage above, only so that the firing pass in
    // TimerQueues+Pass.swift and the wake-up rule in TimerQueues+Wake.swift can reach them;
    // nothing outside `TimerQueues` uses them.)

    /// Whether an entry of `heap` still stands for its timer: the slot holds the timer queued
    /// under this entry's sequence, in this heap, at this key. A later timer in the slot, or the
    /// same timer after a reset, has another sequence; the same timer after a fire has a later key
    /// (a re-queue always moves the fire date forward). Sequences are kept to 32 bits, and
    /// should a stale entry ever match all of this, it names the slot's timer at that timer's own
    /// date, so taking it is still right (the timer's other entry then goes stale).
    @inline(__always)  // called on `self` from mutating code, an outlined call copied it whole (200 bytes)
    func isLive(_ entry: TimerHeapEntry, in heap: Int) -> Bool {
        let index = Int(entry.slot)
        guard index < slots.count else { return false }
        let slot = slots[index]  // read once: plain data, 40 bytes
        guard slot.isQueued, slot.sequence == entry.sequence else { return false }
        let mode = Int(slot.modeIndex)
        let tolerance = timing(of: slot).tolerance
        if tolerance == 0 { return heap == self.heap(mode, .exact) && entry.key == slot.fireDate }
        if heap == self.heap(mode, .tolerant) { return entry.key == slot.fireDate }
        return heap == self.heap(mode, .windows) && entry.key == slot.fireDate.saturatingAdd(tolerance)
    }

    /// Queues the timer in `slot` at its fire date under its scheduling sequence; `deferring`
    /// holds its fire-date entry in ``deferred`` until the pass ends, instead of its heap.
    mutating func enqueue(_ slot: UInt32, deferring: Bool = false) {
        let index = Int(slot)
        slots[index].isQueued = true
        let queued = slots[index]  // read once: plain data, 40 bytes
        let mode = Int(queued.modeIndex)
        let entry = TimerHeapEntry(key: queued.fireDate, sequence: queued.sequence, slot: slot)
        let tolerance = timing(of: queued).tolerance
        let fireDateHeap = heap(mode, tolerance == 0 ? .exact : .tolerant)
        if deferring {
            deferred.append((entry, fireDateHeap))
        } else {
            heaps[fireDateHeap].insert(entry)
        }
        if tolerance > 0 {
            heaps[heap(mode, .windows)].insert(TimerHeapEntry(key: entry.key.saturatingAdd(tolerance),
                                                        sequence: entry.sequence, slot: slot))
        }
    }

    /// Ends the timer in `slot` (no longer queued) and moves its action to `action`. A slot that a
    /// C handle holds stays, with its generation, until the handle is released (``recycle(_:)``);
    /// one whose detached handle was released is reused now.
    mutating func free(_ slot: UInt32, releasing action: inout TimerAction) {
        let index = Int(slot)
        action = self.action(at: index)
        let tag = slots[index].action.tag
        if tag != 0 { tagUses[tag] &-= 1 }
        slots[index].action = .idle
        slots[index].isArmed = false
        if slots[index].timing != 0 {
            freeTimings.append(slots[index].timing)
            slots[index].timing = 0
        }
        if slots[index].isReferenced { referencedCount[Int(slots[index].modeIndex)] &-= 1 }
        count -= 1
        switch slots[index].handle {
        case .none: recycle(slot)
        case .released, .transient:  // the timer's end is the end of such a handle too
            slots[index].handle = .none
            heldCount -= 1
            recycle(slot)
        case .held, .detached: break  // kept, ended, until the handle is released
        }
    }

    /// Puts an ended timer's slot back for reuse: ids of its timer no longer match. A slot whose
    /// generation reaches ``TimerID/generationLimit`` is retired instead, for good, so that no id
    /// or handle ever names two timers (TimerQueues+Generations.swift). (Inlined into
    /// ``free(_:releasing:)``, where a call of its own cost a cancel about 30 instructions.)
    @inline(__always)
    mutating func recycle(_ slot: UInt32) {
        let index = Int(slot)
        slots[index].generation &+= 1
        if slots[index].generation < TimerID.generationLimit { freeSlots.append(slot) }
        if count == 0 && heldCount == 0 { restartFromFirstSlot() }
    }

    /// Makes the next timers take slots 0, 1, 2, … (skipping retired ones), side by side in memory
    /// instead of wherever the last ones ended (a cancel in random order leaves the free list
    /// shuffled); for a table with no timer armed and no slot held. The slots stay, with their
    /// generations, and every heap entry left is stale; their memory goes back to the system only
    /// if the table stays empty (``noteQuietPassEnd()``).
    @inline(__always)
    mutating func restartFromFirstSlot() {
        madeSlots = 0
        freeSlots.removeAll(keepingCapacity: true)
        forgetTimings()
        for index in heaps.indices { heaps[index].removeAll() }
        emptyings &+= 1
    }

    /// At the end of each pass: once two pass ends in a row have found the table empty, with
    /// nothing armed between them, its memory goes back to the system (``giveMemoryBack()``). A
    /// table that empties and fills again at once (a server's timeouts, a benchmark's rounds)
    /// keeps its pages, so arming pays no page fault, and gives nothing back it would take again;
    /// a loop left idle gives the memory of its last burst back in its second pass. O(1) but for
    /// that give-back, which is O(n) once per n arms.
    @inline(__always)
    mutating func noteQuietPassEnd() {
        if count == 0 && heldCount == 0 && madeSlots == 0 {
            quietPassEnds = emptyings == emptyingsAtLastPassEnd ? quietPassEnds &+ 1 : 1
            if quietPassEnds == 2 { giveMemoryBack() }
        } else {
            quietPassEnds = 0
        }
        emptyingsAtLastPassEnd = emptyings
    }

    /// Gives the pages of an empty table's heaps back to the system, and its slots' if there are
    /// many (``giveSlotsBack()``).
    @inline(never)  // off the hot path of the pass
    mutating func giveMemoryBack() {
        for index in heaps.indices { heaps[index].releaseMemory() }
        if slots.count >= Self.slotsKeptEmpty { giveSlotsBack() }
    }

    /// How many slots an empty table keeps as they are; past this, their memory goes back to the
    /// system once the table empties (about 12,000 slots: a megabyte).
    static let slotsKeptEmpty = FreedMemory.threshold / MemoryLayout<TimerSlot>.stride

    /// Gives the memory of an empty table's slots back to the system, keeping their generations
    /// (per chunk of slots: SlotGenerations.swift) in ``inheritedGenerations``, as a close does: the next
    /// timers make their slots anew from there (``nextSlot()``), in the buffer the slots had, so
    /// arming as many timers again allocates and copies nothing. O(n) for n slots, once per
    /// emptying of a table that n arms have filled again: O(1) per arm, amortized.
    @inline(never)  // off the hot path of the cancel that empties the table
    mutating func giveSlotsBack() {
        keepGenerations()
        slots.removeAll(keepingCapacity: true)
        FreedMemory.releasePages(pastEndOf: &slots)
        freeSlots = []  // empty already; its buffer had room for every slot
    }

    /// The next slot past those taken since the table last emptied (a kept one, or a new one at
    /// its inherited generation), skipping retired slots: for an arm when no slot is free.
    private mutating func nextSlot() -> UInt32 {
        while true {
            let index = madeSlots
            madeSlots += 1
            if index == slots.count {
                FreedMemory.append(TimerSlot(generation: inheritedGenerations.start(of: index)), to: &slots, limit: TimerID.handleSlotLimit)
            }
            if slots[index].generation < TimerID.generationLimit { return UInt32(index) }
        }
    }

    @inline(__always)
    func heap(_ mode: Int, _ kind: Kind) -> Int { Kind.count * mode + kind.rawValue }

    /// The interval and tolerance of the timer `slot` holds (zeros for a one-shot without
    /// tolerance, which keeps none: ``TimerSlot/timing`` 0). For a slot already read.
    @inline(__always)
    func timing(of slot: TimerSlot) -> Timing {
        slot.timing == 0 ? Timing() : timings[Int(slot.timing)]
    }

    /// The interval of the armed timer in slot `index` (0: a one-shot).
    @inline(__always)
    func interval(at index: Int) -> Nanoseconds { timing(of: slots[index]).interval }

    /// The tolerance of the armed timer in slot `index`.
    @inline(__always)
    func tolerance(at index: Int) -> Nanoseconds { timing(of: slots[index]).tolerance }

    /// An entry of ``timings`` holding `timing`: a free one, or a new one.
    private mutating func keepTiming(_ timing: Timing) -> UInt32 {
        if let free = freeTimings.popLast() {
            timings[Int(free)] = timing
            return free
        }
        timings.append(timing)
        return UInt32(timings.count - 1)
    }

    /// Empties ``timings``, for a table with no timer armed (its memory goes too once large).
    private mutating func forgetTimings() {
        guard timings.count > 1 else { return }  // none kept: the emptying of a table of one-shots
        let large = timings.capacity * MemoryLayout<Timing>.stride >= FreedMemory.threshold
        timings.removeAll(keepingCapacity: !large)
        timings.append(Timing())
        freeTimings.removeAll(keepingCapacity: !large)
    }

    /// The heap that orders the timer in slot `index` by fire date: its mode's exact heap
    /// without tolerance, its tolerant heap with.
    @inline(__always)
    func fireDateHeap(of index: Int) -> Int {
        heap(Int(slots[index].modeIndex), tolerance(at: index) == 0 ? .exact : .tolerant)
    }

    /// Counts one more stale entry in a heap. Once stale entries make up half of it, each one
    /// more sweeps a few entries (``sweepStale(_:)``), so that the stale ones go a few at a time,
    /// each cancel paying for about as many as it makes; a heap three quarters stale all the same
    /// (a sweep that fell behind) is rebuilt at once, O(n). (Rebuilt at three quarters alone, a
    /// cancel of 10⁶ timers in random order paid the rebuild of the heap inside one cancel:
    /// 5-6 µs per cancel over its batch of 1,000 in `make bench`'s scale step. Rebuilt at half,
    /// cancelling 10⁵ timers read each timer's slot twice more; at three quarters, a third more:
    /// measured 6.6 → 5.1 data cache misses and 436 → 380 instructions per cancel.)
    mutating func noteStale(_ heap: Int) {
        heaps[heap].staleCount += 1
        guard heaps[heap].staleCount > 32, heaps[heap].staleCount * 2 > heaps[heap].count else { return }
        sweepStale(heap)
        guard heaps[heap].staleCount * 4 > heaps[heap].count * 3 else { return }
        // Filtered in the heap's own buffer: a fresh array of the live entries would shrink the
        // heap, and the next arms would grow it again, allocating and copying at every doubling.
        var live = heaps[heap].takeEntries()
        live.removeAll { !isLive($0, in: heap) }
        heaps[heap].rebuild(from: consume live)
        heaps[heap].sweepIndex = -1
    }

    /// Looks at the next ``sweepBudget`` leaves of `heap` from where its sweep left off, towards
    /// the root, then from the last entry again, and removes the stale ones. Leaves only (three
    /// quarters of a 4-ary heap), where a removal moves one entry up a level or two: an inner
    /// entry's removal sifts through every level below it, and the batches of cancels whose
    /// sweeps got there cost twice the others (stop p99.9 of batches at 10⁷ timers, C: 919-973 ns
    /// with them, 724-806 without; at 10⁶ 658-794 against 562-604). Stale inner entries go when
    /// the heap has shrunk under them or when they reach the top, or with a rebuild.
    private mutating func sweepStale(_ heap: Int) {
        var index = heaps[heap].sweepIndex
        // The slots of the leaves it looks at, asked for together before the first is read: in a
        // large table each is a cache miss of its own, and they overlap. (Where the sweep wraps
        // to the last entry part way, the rest are read without.)
        let first = heaps[heap].leafOrLast(index)
        for leaf in stride(from: first, to: max(first - Self.sweepBudget, 0), by: -1) {
            prefetchSlot(Int(heaps[heap].entries[leaf].slot))
        }
        for _ in 0..<Self.sweepBudget {
            index = heaps[heap].leafOrLast(index)
            guard index >= 0 else { break }
            if !isLive(heaps[heap].entries[index], in: heap) {
                heaps[heap].remove(at: index)
                heaps[heap].staleCount = max(0, heaps[heap].staleCount - 1)
            }
            index -= 1
        }
        heaps[heap].sweepIndex = index
        heaps[heap].releasePagesOnceShrunk()
    }

    /// Entries a sweep looks at per stale entry counted: at half stale or more, about four of
    /// them go, more than the one that came.
    static let sweepBudget = 8
}
