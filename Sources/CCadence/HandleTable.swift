import Cadence

/// Every object the C API has handed out, behind small value handles with a generation count
/// (the sokol_gfx scheme): `id = generation << 32 | (slot + 1)`, generations below 2³¹. A stale,
/// released or foreign id fails the look-up instead of reaching freed memory; 0 is "no handle".
/// Scheduled timers are not in the table: their handles name a loop and the engine's own slot
/// (HandleTable+Timers.swift), marked by the top bit, which no id of the table has.
final class HandleTable: @unchecked Sendable {
    /// Every cancellable but a scheduled timer is a ``CancellableHandle``.
    enum Kind: UInt8 { case loop, publisher, cancellable }

    struct Slot {
        var generation: UInt32 = 1
        var kind = Kind.loop
        /// A loop's place in ``Storage/loops`` (in the padding after `kind`).
        var registry: UInt16 = 0
        var owner: UInt64 = 0     // the loop handle this object belongs to (0 for a loop)
        var object: AnyObject?
        /// A scheduled timer's engine id; for a loop, the loop's address, unretained (`object` holds
        /// the reference), so that a look-up under the lock borrows the loop without a retain and a
        /// release (atomic operations, which are most of what the C API adds to a timer's start).
        var word: UInt64 = 0
    }

    /// A loop as scheduled timers' handles name it (by its index): its address, unretained (its
    /// handle's slot holds it), 0 when the place is free; and the generation its successor's
    /// timer slots start at (the engine's ``Loop/generationFloor`` when it was destroyed).
    struct LoopEntry {
        var address: UInt = 0
        var floor: UInt32 = 1
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
    let lock = Lock()
    @exclusivity(unchecked) var storage = Storage()  // guarded by `lock`

    static let shared = HandleTable()

    /// Stores `object` (not a loop: see ``insert(_:)``) and returns its new handle.
    func insert(_ object: AnyObject, kind: Kind, owner: UInt64) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let (index, id) = Self.reserve(in: &storage)
        storage.slots[index].kind = kind
        storage.slots[index].owner = owner
        storage.slots[index].object = object
        return id
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

    /// The loop behind a live loop handle.
    func loop(_ id: UInt64) -> Loop? {
        lock.lock()
        defer { lock.unlock() }
        return loopLocked(id)
    }

    /// The object behind a live handle of `kind`, and the loop handle that owns it.
    func lookUp(_ id: UInt64, kind: Kind) -> (object: AnyObject, owner: UInt64)? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id), storage.slots[index].kind == kind,
              let object = storage.slots[index].object else { return nil }
        return (object, storage.slots[index].owner)
    }

    /// Puts `object` behind a live handle reserved earlier (see `insert(kind:owner:of:_:)`).
    func replace(_ id: UInt64, with object: AnyObject) {
        lock.lock()
        defer { lock.unlock() }
        if let index = index(id), storage.slots[index].object != nil {
            storage.slots[index].object = object
        }
    }

    /// Frees a live handle of `kind` and returns its object; nil if the handle was not live.
    func remove(_ id: UInt64, kind: Kind) -> AnyObject? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id), storage.slots[index].kind == kind,
              let object = storage.slots[index].object else { return nil }
        Self.free(index, in: &storage)
        return object
    }

    /// Frees every handle owned by `loop`, returning their objects (released outside the lock).
    func removeAll(ownedBy loop: UInt64) -> [AnyObject] {
        lock.lock()
        defer { lock.unlock() }
        var removed: [AnyObject] = []
        for index in storage.slots.indices where storage.slots[index].owner == loop {
            if let object = storage.slots[index].object {
                removed.append(object)
                Self.free(index, in: &storage)
            }
        }
        return removed
    }

    /// Gives a new loop its handle and its place among the loops that timer handles name, and
    /// starts its timers' generations past those of the loop that had the place before.
    /// - Throws: ``CadenceError/outOfMemory`` when every place is taken.
    func insert(_ loop: Loop) throws(CadenceError) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let place: Int
        if let reused = storage.freeLoops.popLast() {
            place = reused
        } else {
            guard storage.loops.count < Self.loopLimit else { throw .tooManyLoops() }
            place = storage.loops.count
            storage.loops.append(LoopEntry())
        }
        let address = UInt(bitPattern: Unmanaged.passUnretained(loop).toOpaque())
        storage.loops[place].address = address
        loop.raiseGenerations(to: storage.loops[place].floor)  // lock order: the table's, the loop's
        loop.setHandleSource(Self.timerSource(place: place))
        let (index, id) = Self.reserve(in: &storage)
        storage.slots[index].kind = .loop
        storage.slots[index].registry = UInt16(place)
        storage.slots[index].object = loop
        storage.slots[index].word = UInt64(address)
        return id
    }

    /// Frees a loop's handle and its place (recording where its successor's generations start);
    /// returns the loop, nil if the handle was not live.
    func removeLoop(_ id: UInt64) -> Loop? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id), storage.slots[index].kind == .loop,
              let loop = storage.slots[index].object as? Loop else { return nil }
        let place = Int(storage.slots[index].registry)
        storage.loops[place] = LoopEntry(address: 0, floor: loop.generationFloor)
        storage.freeLoops.append(place)
        Self.free(index, in: &storage)
        return loop
    }

    /// How many loops can exist at once: the places a timer handle's 15 bits can name.
    static let loopLimit = 1 << 15

    // The look-ups below read `storage` in place, under the lock (taken by the caller): passed as
    // a value, its arrays would be retained and released on every call.

    /// The loop behind a live loop handle, retained.
    func loopLocked(_ id: UInt64) -> Loop? {
        borrowedLoop(id)?.takeUnretainedValue()
    }

    /// The loop behind a live loop handle, unretained: valid while the lock is held, since the
    /// handle's slot keeps the loop until the handle is removed, which takes the lock.
    func borrowedLoop(_ id: UInt64) -> Unmanaged<Loop>? {
        guard let index = index(id), storage.slots[index].kind == .loop,
              let address = UnsafeRawPointer(bitPattern: UInt(storage.slots[index].word)) else { return nil }
        return Unmanaged.fromOpaque(address)  // only loops are stored as `.loop`
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
        storage.slots[index].registry = 0
        storage.slots[index].word = 0
        storage.slots[index].owner = 0
        // Generation 0 is never issued, so a zeroed id cannot match a slot; nor is 2³¹ or more,
        // so that no id of the table has the top bit of a timer's handle.
        let generation = storage.slots[index].generation
        storage.slots[index].generation = generation >= 0x7FFF_FFFF ? 1 : generation + 1
        storage.free.append(index)
    }
}

extension HandleTable {
    /// Gives the object that `make` builds a handle owned by `loop`. For cancellables the handle
    /// stands for a ``CancellableHandle``, which `make` receives, so that callbacks can name (and
    /// cancel) their source from the very first call, even on another thread; `make` sets its
    /// ``CancellableHandle/life``, which a failure abandons.
    ///
    /// The handle is withdrawn, and its object cancelled, if the loop was destroyed meanwhile: the
    /// loop's sweep of its handles may have run before this one was stored.
    func insert(kind: Kind, owner loopID: UInt64, of loop: Loop,
                _ make: (CancellableHandle) throws(CadenceError) -> AnyObject) throws(CadenceError) -> UInt64 {
        let handle = CancellableHandle()
        handle.id = insert(handle, kind: kind, owner: loopID)
        let object: AnyObject
        do throws(CadenceError) {
            object = try make(handle)
        } catch {
            _ = remove(handle.id, kind: kind)
            handle.life?.abandon()  // a registering call that fails calls nothing
            throw error
        }
        if kind == .cancellable {
            handle.attach(object)
        } else {
            replace(handle.id, with: object)
        }
        guard !loop.isClosed else {
            _ = remove(handle.id, kind: kind)
            handle.life?.abandon()
            (object as? any Cancellable)?.cancel()
            throw .badHandle.with("loop must stay live during the call, got a loop destroyed meanwhile")
        }
        return handle.id
    }

    /// The object behind a live cancellable handle.
    func cancellable(_ id: UInt64) -> CancellableHandle? {
        lookUp(id, kind: .cancellable)?.object as? CancellableHandle
    }
}
