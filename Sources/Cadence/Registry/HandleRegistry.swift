/// Every object the C API has handed out, behind small value handles with a generation count
/// (the sokol_gfx scheme): `id = generation << 32 | (slot + 1)`, generations below 2²⁷, never
/// reused: a slot is retired when its generations run out (``free(_:in:)``). A stale, released
/// or foreign id fails the look-up instead of reaching freed memory or a later object; 0 is "no
/// handle".
/// Scheduled timers have no slot here: their handles name a loop's place and the engine's own
/// timer slot (HandleRegistry+Timers.swift), marked by bit 59 with no bit above it, which no id
/// of a slot has.
///
/// The registry keeps what a handle is (its kind, its loop, whether it was detached or released)
/// and what it names; what the named work does when cancelled or given up is the work's own
/// (``RegisteredWork``). Package API: the C layer translates its handles here and nowhere else.
package final class HandleRegistry: @unchecked Sendable {
    /// What a slot holds: a loop, a publisher, or a cancellable other than a scheduled timer.
    package enum Kind: UInt8 { case loop, publisher, cancellable }

    struct Slot {
        var generation: UInt32 = 1
        var kind = Kind.loop
        /// A cancellable's handle was detached: releasing it leaves its work running.
        var detached = false
        /// A cancellable's handle was released: the release is under way, or, for a detached
        /// handle whose work's callbacks name it, the slot lives until that work ends
        /// (``freeIfReleased(_:)``).
        var released = false
        /// A cancellable's registering call has not returned yet: a destroy of its loop meanwhile
        /// leaves the slot to that call (with owner 0), which frees it, abandons the work and fails.
        var starting = false
        /// A loop's place in ``Storage/loops`` (in the padding after the flags).
        var place: UInt16 = 0
        var owner: UInt64 = 0     // the loop handle this object belongs to (0 for a loop)
        var object: AnyObject?
        /// For a loop, the loop unretained (`object` holds the reference), so that a look-up
        /// under the lock borrows the loop without a retain and a release (atomic operations,
        /// which are most of what the C API adds to a timer's start).
        var loop: Unmanaged<Loop>?
    }

    /// A loop as scheduled timers' handles name it (by its place): the loop, unretained (its
    /// handle's slot holds it), nil when the place is free; and, while the place is free, the
    /// generations its successor's timer slots start at (the engine's ``Loop/slotGenerations``
    /// when the last loop there was destroyed).
    struct LoopEntry {
        var loop: Unmanaged<Loop>?
        var generations = SlotGenerations()
    }

    struct Storage {
        var slots: [Slot] = []
        var free: [Int] = []
        var loops: [LoopEntry] = []
        var freeLoops: [Int] = []
    }

    /// Taken with `lock()` and `unlock()` rather than `withLock`: the generic `withLock` is not
    /// specialized across modules, and each result type it returns then has its metadata built
    /// at run time on first use (about 50 000 instructions for a tuple in an optional).
    /// Lock order: this lock, then a loop's; never held while a callback or a cancel runs.
    let lock = Lock()
    @exclusivity(unchecked) var storage = Storage()  // guarded by `lock`

    /// The registry of the C API.
    package static let shared = HandleRegistry()

    /// How many loops can exist at once: the places a timer handle's 11 bits can name.
    package static let loopLimit = 1 << 11

    /// An empty registry (the C API's is ``shared``).
    package init() {}

    // MARK: Loops

    /// Gives a new loop its handle and its place among the loops that timer handles name, and
    /// starts its timers' generations past those of the loop that had the place before.
    /// - Throws: ``CadenceError/outOfMemory`` when every place is taken.
    package func insert(_ loop: Loop) throws(CadenceError) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let place: Int
        if let reused = storage.freeLoops.popLast() {
            place = reused
        } else {
            guard storage.loops.count < Self.loopLimit else { throw .tooManyLoops(Self.loopLimit) }
            place = storage.loops.count
            storage.loops.append(LoopEntry())
        }
        let unretained = Unmanaged.passUnretained(loop)
        storage.loops[place].loop = unretained
        // Lock order: the registry's, the loop's. The loop keeps the generations from now on.
        loop.inheritGenerations(storage.loops[place].generations)
        storage.loops[place].generations = SlotGenerations()
        loop.setHandleSource(Self.timerSource(place: place))
        let (index, id) = Self.reserve(in: &storage)
        storage.slots[index].kind = .loop
        storage.slots[index].place = UInt16(place)
        storage.slots[index].object = loop
        storage.slots[index].loop = unretained
        return id
    }

    /// The loop behind a live loop handle.
    package func loop(_ id: UInt64) -> Loop? {
        lock.lock()
        defer { lock.unlock() }
        return borrowedLoop(id)?.takeUnretainedValue()
    }

    /// Destroys the loop behind a live handle (``Loop/close()``), frees its handle and its place
    /// (recording where its successor's generations start), then every handle it owns, ending
    /// their work's userdata (``RegisteredWork/endWithLoop()``) outside the lock.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead handle, or for a loop being destroyed (by
    ///   the destroy whose release function calls this); what ``Loop/close()`` throws.
    package func destroyLoop(_ id: UInt64) throws(CadenceError) {
        guard let loop = loop(id) else { throw .deadHandle("loop", id, kind: "loop") }
        // A release function that destroys the loop whose destroy released its userdata: the
        // outer call finishes the destroy.
        guard !loop.isClosed else {
            throw .badHandle.with("loop must be live, got one being closed (by the cadence_loop_close that "
                                  + "called this release function)")
        }
        try loop.close()
        var owned: [AnyObject] = []
        lock.lock()
        // Of two destroys at once, both may close (the second does nothing); one removes.
        guard let index = index(id), storage.slots[index].kind == .loop else {
            lock.unlock()
            throw .deadHandle("loop", id, kind: "loop")
        }
        let place = Int(storage.slots[index].place)
        storage.loops[place] = LoopEntry(loop: nil, generations: loop.slotGenerations)
        storage.freeLoops.append(place)
        Self.free(index, in: &storage)
        for index in storage.slots.indices where storage.slots[index].owner == id {
            if storage.slots[index].starting {
                storage.slots[index].owner = 0  // orphaned: its registering call fails, ending nothing
            } else if let object = storage.slots[index].object {
                owned.append(object)
                Self.free(index, in: &storage)
            }
        }
        lock.unlock()
        // The close has cancelled what they stood for: their userdata is released now.
        for case let work as any RegisteredWork in owned { work.endWithLoop() }
    }

    // MARK: Slots

    /// Stores `object` under a new handle of `kind` owned by loop handle `owner`.
    func insert(_ object: AnyObject, kind: Kind, owner: UInt64) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let (index, id) = Self.reserve(in: &storage)
        storage.slots[index].kind = kind
        storage.slots[index].owner = owner
        storage.slots[index].object = object
        return id
    }

    /// A new handle whose object comes later (``fill(_:with:starting:)``): until then it names nothing.
    func reserve(kind: Kind, owner: UInt64) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let (index, id) = Self.reserve(in: &storage)
        storage.slots[index].kind = kind
        storage.slots[index].owner = owner
        return id
    }

    /// Puts `object` behind a handle that ``reserve(kind:owner:)`` made.
    func fill(_ id: UInt64, with object: AnyObject, starting: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        if let index = index(id) { (storage.slots[index].object, storage.slots[index].starting) = (object, starting) }
    }

    /// Takes a free slot (or a new one) and returns its index and the id it will have.
    static func reserve(in storage: inout Storage) -> (index: Int, id: UInt64) {
        let index: Int
        if let reused = storage.free.popLast() {
            index = reused
        } else {
            index = storage.slots.count
            let capacity = storage.slots.capacity
            storage.slots.append(Slot())
            if storage.slots.capacity != capacity {
                FreedMemory.release(afterGrowingTo: storage.slots.capacity * MemoryLayout<Slot>.stride)
            }
        }
        return (index, UInt64(storage.slots[index].generation) << 32 | UInt64(index + 1))
    }

    /// The object behind a live handle of `kind`, and the loop handle that owns it.
    package func lookUp(_ id: UInt64, kind: Kind) -> (object: AnyObject, owner: UInt64)? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id), storage.slots[index].kind == kind,
              let object = storage.slots[index].object else { return nil }
        return (object, storage.slots[index].owner)
    }

    /// Frees a live handle of `kind` and returns its object (for the caller to let go of outside
    /// the lock: its deinit may cancel, and wait for a callback calling into the registry); nil
    /// if the handle was not live.
    @discardableResult
    package func remove(_ id: UInt64, kind: Kind) -> AnyObject? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id), storage.slots[index].kind == kind,
              let object = storage.slots[index].object else { return nil }
        Self.free(index, in: &storage)
        return object
    }

    // The look-ups below read `storage` in place, under the lock (taken by the caller): passed as
    // a value, its arrays would be retained and released on every call.

    /// The loop behind a live loop handle, unretained: valid while the lock is held, since the
    /// handle's slot keeps the loop until the handle is removed, which takes the lock.
    func borrowedLoop(_ id: UInt64) -> Unmanaged<Loop>? {
        guard let index = index(id), storage.slots[index].kind == .loop else { return nil }
        return storage.slots[index].loop
    }

    /// The slot of a live handle (of any kind).
    func index(_ id: UInt64) -> Int? {
        let slot = Int(id & 0xFFFF_FFFF) - 1
        guard slot >= 0, slot < storage.slots.count,
              storage.slots[slot].generation == UInt32(truncatingIfNeeded: id >> 32) else { return nil }
        return slot
    }

    static func free(_ index: Int, in storage: inout Storage) {
        storage.slots[index].object = nil
        storage.slots[index].place = 0
        storage.slots[index].loop = nil
        storage.slots[index].owner = 0
        storage.slots[index].detached = false
        storage.slots[index].released = false
        storage.slots[index].starting = false
        // Generations run from 1 to 2²⁷ − 1 and never wrap: 0 is never issued, so a zeroed id
        // cannot match a slot, nor is 2²⁷ or more, so that no id of a slot has the tag bit of a
        // timer's handle (bit 59). A slot whose last generation was issued is retired for good
        // (40 bytes per 2²⁷ handles that one slot has held): no id ever names two objects.
        let generation = storage.slots[index].generation
        guard generation < Self.generationLimit - 1 else {
            storage.slots[index].generation = 0
            return
        }
        storage.slots[index].generation = generation + 1
        storage.free.append(index)
    }

    /// One past the last generation a slot's ids carry.
    static let generationLimit: UInt32 = 1 << 27
}

extension CadenceError {
    /// A handle that names nothing live of its kind.
    @inline(never)
    package static func deadHandle(_ argument: StaticString, _ id: UInt64, kind: StaticString) -> CadenceError {
        badHandle.with("\(argument) must be a live \(kind) handle, got 0x\(String(id, radix: 16)) "
                       + "(released, destroyed with its loop, of another kind, or never made)")
    }

    /// A loop made when `limit` loops exist: it would be loop `limit + 1`.
    @inline(never)
    static func tooManyLoops(_ limit: Int) -> CadenceError {
        outOfMemory.with("loops must number at most \(limit) at once (a timer handle names its loop "
                         + "in \(limit.trailingZeroBitCount) bits), got \(limit + 1) (destroy one first)")
    }
}
