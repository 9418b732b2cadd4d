/// A loop's batch of one-shot fires for a binding (cadence_loop_set_fire_batch): the one-shots of
/// the loop's fire function that a pass takes in a row are written here, under the loop's lock,
/// and handed over in one call, so that a binding crosses into its language once per batch
/// instead of once per fire. A fire of anything else (a Swift closure, another C function, a
/// repeating timer) first hands over what is written, so the fire-date order holds.
///
/// While a batch is handed over, its timers count as running callbacks: a cancel from another
/// thread waits for the whole batch (``Loop/isRunningCallbackLocked(of:)``), so that once it
/// returns none of them is still to be called.
struct FireBatch {
    /// One fire: `cadence_fire_record`'s layout.
    struct Record {
        var userdata: UnsafeMutableRawPointer?
        var fireDate: Double
        var source: UInt64
    }

    /// The most fires handed over in one call: the batch's memory stays small, and the binding's
    /// call per batch is a few nanoseconds per fire.
    static let capacity = 256

    /// The function the batch goes to, and the fire function whose one-shots it takes.
    let deliver: DeliverFires
    let fire: UnsafeRawPointer
    var records: [Record] = []
    var ids: [TimerID] = []
    /// Whether the batch is being handed over now (outside the loop's lock).
    var delivering = false

    init(deliver: @escaping DeliverFires, fire: UnsafeRawPointer) {
        self.deliver = deliver
        self.fire = fire
        records.reserveCapacity(Self.capacity)
        ids.reserveCapacity(Self.capacity)
    }
}

/// `cadence_fire_batch_fn`: the records and their count.
package typealias DeliverFires = @convention(c) (UnsafeRawPointer, Int) -> Void

extension Loop {
    /// Sets the function that the one-shots of the loop's fire function are handed to in batches
    /// (see ``FireBatch``), or clears it with nil; it applies from the next pass.
    ///
    /// - Throws: ``CadenceError/badHandle`` after ``close()``; ``CadenceError/invalidArgument``
    ///   when the loop has no fire function, or while a pass hands a batch over.
    package func setFireBatch(_ deliver: DeliverFires?) throws(CadenceError) {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosedFlag else { throw .loopClosed() }
        guard fireBatch?.delivering != true else {
            throw .invalidArgument.with("batch must not change while one is delivered, got a call from its function")
        }
        guard let deliver else {
            fireBatch = nil
            return
        }
        guard let fire = defaultFire else { throw .noFireFunction() }
        fireBatch = FireBatch(deliver: deliver, fire: fire)
    }

    /// Whether `fire` goes into the batch: a one-shot of the fire function the batch was set for.
    /// (Reads the one field: a copy of the batch would retain and release its arrays per fire.)
    @inline(__always)
    func isBatched(_ fire: TimerQueues.Fire) -> Bool {
        guard let batchFire = fireBatch?.fire else { return false }
        return fire.isFinal && fire.action.call.function == batchFire
    }

    /// Writes `fire` into the batch, handing the batch over once it is full. With the lock held.
    @inline(__always)
    func addToBatchLocked(_ fire: TimerQueues.Fire, seconds: Double, source: UInt64) {
        fireBatch!.records.append(FireBatch.Record(userdata: fire.action.call.userdata, fireDate: seconds,
                                                   source: source | fire.id.handleBits))
        fireBatch!.ids.append(fire.id)
        callbacksStarted &+= 1
        if fireBatch!.records.count == FireBatch.capacity { deliverBatchLocked() }
    }

    /// Hands the batch written so far over (none: nothing), with the lock released meanwhile;
    /// then wakes the cancels that waited for it.
    func deliverBatchLocked() {
        guard fireBatch?.records.isEmpty == false else { return }
        // Taken out while it is handed over: the array is not copied, and stays the batch's.
        var records: [FireBatch.Record] = []
        swap(&records, &fireBatch!.records)
        let deliver = fireBatch!.deliver
        fireBatch!.delivering = true
        lock.unlock()
        records.withUnsafeBytes { deliver($0.baseAddress!, records.count) }
        lock.lock()
        records.removeAll(keepingCapacity: true)
        if fireBatch != nil {  // set again only after the batch: setFireBatch refuses meanwhile
            swap(&records, &fireBatch!.records)
            fireBatch!.ids.removeAll(keepingCapacity: true)
            fireBatch!.delivering = false
        }
        if callbackWaiters > 0 { lock.signalAll() }
    }

    /// Whether `id` is in the batch being handed over now. With the lock held.
    func isDeliveringLocked(_ id: TimerID) -> Bool {
        fireBatch?.delivering == true && fireBatch!.ids.contains(id)
    }
}
