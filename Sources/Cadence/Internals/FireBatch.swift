import Glibc

/// A loop's batch of one-shot fires for a binding (cadence_loop_set_fire_batch): the one-shots of
/// the loop's fire function that a pass takes in a row are written here, under the loop's lock,
/// and handed over in one call, so that a binding crosses into its language once per batch
/// instead of once per fire. A fire of anything else (a Swift closure, another C function, a
/// repeating timer) first hands over what is written, so the fire-date order holds.
///
/// A batched one-shot stays armed, due and not yet called, until its call starts, as it would
/// without a batch: the batch function counts the records whose calls it has started in
/// `*started`, and the loop ends their timers when it next looks at one on its own thread
/// (``Loop/settleBatchLocked()``), or after the call. So a callback of an earlier record can still
/// cancel, reset or read a later record's timer; a record whose timer it cancelled or reset has
/// its `source` set to 0, and the batch function skips it. On another thread, whose calls cannot
/// know how far the batch has got, the batch's timers count as running callbacks: a cancel waits
/// for the whole batch (``Loop/isRunningCallbackLocked(of:)``) and then finds them fired.
struct FireBatch {
    typealias Record = FireRecord

    /// The records and the count of calls started, in memory of their own: the batch function
    /// reads and writes them with the loop's lock released, and the loop marks a record there.
    final class Storage: @unchecked Sendable {  // touched under the loop's lock, or by its thread
        let records = UnsafeMutablePointer<Record>.allocate(capacity: FireBatch.capacity)
        let started = UnsafeMutablePointer<Int>.allocate(capacity: 1)

        deinit {
            records.deallocate()
            started.deallocate()
        }
    }

    /// The most fires handed over in one call: the batch's memory stays small, and the binding's
    /// call per batch is a few nanoseconds per fire.
    static let capacity = 256

    /// What the batch goes to, and the kind of one-shots it takes (``TimerHandler/batchWord(kind:)``).
    let deliver: DeliverFires
    let kind: UInt
    let storage = Storage()
    var count = 0
    /// The timers of the records, by index.
    var ids: [TimerID] = []
    /// How many records, from the first, have had their timers ended (their calls started).
    var ended = 0
    /// Whether the batch is being handed over now (outside the loop's lock).
    var delivering = false

    init(deliver: @escaping DeliverFires, kind: UInt) {
        self.deliver = deliver
        self.kind = kind
        ids.reserveCapacity(Self.capacity)
    }
}

/// Where a pass collects its last batch instead of handing it over
/// (``Loop/runPass(mode:collecting:)``): the records whose word has all of `mask`'s bits, copied
/// to the caller's `records`, at most `capacity` of them.
package struct Collector {
    let mask: UInt
    let records: UnsafeMutablePointer<FireRecord>
    let capacity: Int

    package init(mask: UInt, records: UnsafeMutablePointer<FireRecord>, capacity: Int) {
        self.mask = mask
        self.records = records
        self.capacity = capacity
    }
}

/// One fire of a batch, in the layout of C's `cadence_fire_record`: the batched handler's word
/// (``TimerHandler/batchWord(kind:)``), its fire date (seconds since 1970, as
/// ``TimerTick/fireDateSeconds``) and its source (0: skip it). A tuple, as ``HandlerWords``: its
/// elements are read in place from any module.
package typealias FireRecord = (word: UInt, fireDate: Double, source: UInt64)

/// What a batch is handed to: the records, their count, and the count of calls started, which it
/// keeps up to date (see ``FireBatch``). Called on the loop's thread, with no lock held.
package typealias DeliverFires = @Sendable (UnsafeMutablePointer<FireRecord>, Int, UnsafeMutablePointer<Int>) -> Void

extension Loop {
    /// Sets what the one-shots whose handlers batch under the host's fire function (the first of
    /// ``setHostFunctions(_:)``'s words, the batch's kind) are handed to in batches (see
    /// ``FireBatch``), or clears it with nil; it applies from the next pass.
    ///
    /// A call from another thread while a batch is handed over waits for it, as a cancel does: the
    /// pass reads the batch again once its function returns.
    ///
    /// - Returns: false, setting nothing, when a batch is asked for and the host has no fire function.
    /// - Throws: ``CadenceError/badHandle`` after ``close()``; ``CadenceError/invalidArgument``
    ///   from the function of the batch being handed over.
    package func setFireBatch(_ deliver: DeliverFires?) throws(CadenceError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosedFlag else { throw .loopClosed() }
        if fireBatch?.delivering == true {
            guard pthread_equal(runningThread, pthread_self()) == 0 else {
                throw .invalidArgument.with("batch must not change while one is delivered, got a call from its function")
            }
            callbackWaiters += 1
            while fireBatch?.delivering == true { lock.wait() }
            callbackWaiters -= 1
            guard !isClosedFlag else { throw .loopClosed() }
        }
        guard let deliver else {
            fireBatch = nil
            return true
        }
        guard hostFunctions.fire != 0 else { return false }
        fireBatch = FireBatch(deliver: deliver, kind: hostFunctions.fire)
        return true
    }

    /// The kind of one-shots a pass keeps for the batch (``TimerQueues/Pass/batchKind``); 0: none.
    var batchKind: UInt { fireBatch?.kind ?? 0 }

    /// Writes the kept one-shot `fire` into the batch, handing the batch over once it is full.
    /// With the lock held.
    @inline(__always)
    func addToBatchLocked(_ fire: TimerQueues.Fire, seconds: Double, source: UInt64) {
        let index = fireBatch!.count
        fireBatch!.storage.records[index] = (
            word: queues.action(at: Int(fire.id.slot)).batchWord(kind: fireBatch!.kind) ?? 0,
            fireDate: seconds, source: source | fire.id.handleBits)
        fireBatch!.count = index + 1
        fireBatch!.ids.append(fire.id)
        callbacksStarted &+= 1
        if index + 1 == FireBatch.capacity { deliverBatchLocked() }
    }

    /// Whether a batch has records to hand over. With the lock held.
    @inline(__always)
    var hasBatchToDeliverLocked: Bool { fireBatch.map { $0.count > 0 } ?? false }

    /// Hands the batch written so far over (none: nothing), with the lock released meanwhile;
    /// then ends the timers of its records not ended yet, and wakes the cancels that waited.
    func deliverBatchLocked() {
        guard let count = fireBatch?.count, count > 0 else { return }
        let storage = fireBatch!.storage, deliver = fireBatch!.deliver
        storage.started.pointee = 0
        fireBatch!.ended = 0
        fireBatch!.delivering = true
        lock.unlock()
        deliver(storage.records, count, storage.started)
        lock.lock()
        // Set again only after the batch: setFireBatch refuses meanwhile.
        emptyBatchLocked(endingUpTo: count)
        fireBatch!.delivering = false
        if callbackWaiters > 0 { lock.signalAll() }
    }

    /// Ends a pass's batch: collects it into `collector` when the pass has one, every record has
    /// its mask's bits, the batch fits and no job is waiting to run after the pass (which would
    /// then come before them); otherwise hands it over. A collected batch's timers end here,
    /// their calls made: what the caller does with the records (a queue of its own) comes after
    /// the pass, and nothing of the pass runs after it, so the fire-date order holds. Returns how
    /// many records it collected. With the lock held.
    func endPassBatchLocked(collectingInto collector: Collector?) -> Int {
        guard let collector, collector.mask != 0, let count = fireBatch?.count, count > 0,
              count <= collector.capacity, jobs.isEmpty else {
            deliverBatchLocked()
            return 0
        }
        let records = fireBatch!.storage.records
        for index in 0..<count where records[index].word & collector.mask != collector.mask {
            deliverBatchLocked()
            return 0
        }
        collector.records.update(from: records, count: count)
        fireBatch!.ended = 0
        emptyBatchLocked(endingUpTo: count)
        return count
    }

    /// Ends the timers of the batch's first `count` records still kept, and empties the batch.
    private func emptyBatchLocked(endingUpTo count: Int) {
        endBatchedLocked(upTo: count)
        fireBatch!.count = 0
        fireBatch!.ids.removeAll(keepingCapacity: true)
    }

    /// Ends the timers of the records before `end` that are still kept: their calls have started.
    private func endBatchedLocked(upTo end: Int) {
        while fireBatch!.ended < end {
            let id = fireBatch!.ids[fireBatch!.ended]
            fireBatch!.ended += 1
            _ = queues.endKept(id)
        }
    }

    /// On the loop's thread while a batch is handed over, ends the timers of the records whose
    /// calls have started (the batch function's `*started`), so that what a callback reads or
    /// changes sees them as fired and the records after them as due. With the lock held.
    @inline(__always)
    func settleBatchLocked() {
        guard fireBatch?.delivering == true else { return }
        settleDeliveringLocked()
    }

    @inline(never)
    private func settleDeliveringLocked() {
        guard pthread_equal(runningThread, pthread_self()) != 0 else { return }
        endBatchedLocked(upTo: min(max(fireBatch!.storage.started.pointee, 0), fireBatch!.count))
    }

    /// Whether `id` counts as fired, though still armed, for the calling thread: one of the batch
    /// being handed over seen from another thread (the loop's own settles first, and then sees
    /// exactly what has started). With the lock held.
    @inline(__always)
    func firedInBatchLocked(_ id: TimerID) -> Bool {
        guard fireBatch?.delivering == true else { return false }
        return firedInDeliveringLocked(id)
    }

    @inline(never)
    private func firedInDeliveringLocked(_ id: TimerID) -> Bool {
        if pthread_equal(runningThread, pthread_self()) != 0 {
            endBatchedLocked(upTo: min(max(fireBatch!.storage.started.pointee, 0), fireBatch!.count))
            return false
        }
        return queues.isKept(id) && isDeliveringLocked(id)
    }

    /// Takes `id`'s record out of the batch being handed over, if it is there, once a cancel or a
    /// reset has made its timer no longer kept: its `source` becomes 0, which the batch function
    /// skips. With the lock held, on the loop's thread (another waits for the batch).
    @inline(__always)
    func unbatchLocked(_ id: TimerID) {
        guard fireBatch?.delivering == true else { return }
        unbatchDeliveringLocked(id)
    }

    @inline(never)
    private func unbatchDeliveringLocked(_ id: TimerID) {
        let batch = fireBatch!
        for index in batch.ended..<batch.count where batch.ids[index] == id {
            batch.storage.records[index].source = 0
            return
        }
    }

    /// Whether `id` is in the batch being handed over now (its call may have started). With the
    /// lock held.
    func isDeliveringLocked(_ id: TimerID) -> Bool {
        fireBatch?.delivering == true && fireBatch!.ids.contains(id)
    }
}
