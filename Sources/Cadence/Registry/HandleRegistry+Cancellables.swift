/// What a registry's cancellable handle names (every kind but a scheduled timer, whose handle
/// names the loop's own slot): a subscription, a connection, a countdown or a poller. The work
/// keeps the C contract itself: its ``Cancellable/cancel()`` is one atomic step that says whether
/// it stopped anything, waits for a callback running on another thread and then releases the
/// userdata (``HandlerLife``); the registry only says which handle was cancelled, released or
/// detached. Every registration is stored before it starts (``HandleRegistry/register(owner:of:_:)``),
/// so its callbacks can name and cancel it from their first call.
protocol RegisteredWork: AnyObject, Detachable {
    /// Whether its callbacks name its handle as their source: a released, detached handle then
    /// keeps its slot until the work ends.
    var namesItsHandle: Bool { get }
    /// Its handle was released without having been detached: stops what only that handle could
    /// stop, and releases the userdata inside the call. Returns whether it stopped work that was
    /// still going (false for work that had ended; a connection says so once it is let go, see
    /// ``HandleRegistry/release(_:)``).
    func giveUp() -> Bool
    /// Its loop was destroyed, whose close cancelled its timers: ends the userdata.
    func endWithLoop()
    /// The registering call failed after it was made: stops it, and calls nothing, ever.
    func abandon()
    /// ``Cancellable/cancel()``, handing the handler's key back (``TimerHandler/handBackKey``)
    /// as `key` instead of calling its end, when this call stopped it and no callback of it is
    /// running (``HandlerLife/finish(handingBack:)``); `key` 0 otherwise.
    func cancelHandingBack() -> (stopped: Bool, key: Int)
}

extension HandleRegistry {
    /// The work behind a live cancellable handle (not a scheduled timer's).
    func work(_ id: UInt64) -> (any RegisteredWork)? {
        lookUp(id, kind: .cancellable)?.object as? any RegisteredWork
    }

    /// Cancels the work behind a live cancellable handle: nil for a dead handle, else whether
    /// this call stopped it (the work decides, atomically) and the key it handed back
    /// (`handingBack`, ``RegisteredWork/cancelHandingBack()``; else 0). A released, detached
    /// handle cancelled by its own callback is freed.
    func cancelWork(_ id: UInt64, handingBack: Bool) -> (stopped: Bool, key: Int)? {
        guard let work = work(id) else { return nil }
        let outcome = handingBack ? work.cancelHandingBack() : (work.cancel(), 0)
        freeIfReleased(id)
        return outcome
    }

    /// Whether the work behind a live cancellable handle has ended; nil for a dead handle.
    func isWorkCancelled(_ id: UInt64) -> Bool? { work(id)?.isCancelled }

    /// The slot and work of a live cancellable handle that was not released; under the lock.
    private func unreleasedWork(_ id: UInt64) -> (index: Int, work: any RegisteredWork)? {
        guard let index = index(id), storage.slots[index].kind == .cancellable, !storage.slots[index].released,
              let work = storage.slots[index].object as? any RegisteredWork else { return nil }
        return (index, work)
    }

    /// Detaches a live cancellable handle: releasing it then leaves its work going. False for a
    /// dead handle, a released one included.
    func detachWork(_ id: UInt64) -> Bool {
        lock.lock()
        guard let (index, work) = unreleasedWork(id) else {
            lock.unlock()
            return false
        }
        storage.slots[index].detached = true
        lock.unlock()
        work.detach()
        return true
    }

    /// Releases a cancellable handle (giving it up): the work's ``RegisteredWork/giveUp()`` unless
    /// it was detached. A detached handle whose callbacks name it is only marked released, and
    /// freed once its work ends. Returns nil for a dead handle (released already), else whether
    /// the release stopped work that was still going (`cadence_cancellable_release_stopping`): a
    /// connection stops in its deinit, once the last handle to it is let go, so that is read
    /// after this registry's reference has gone.
    func releaseWork(_ id: UInt64) -> Bool? {
        var connection: (wasGoing: Bool, isCancelled: () -> Bool)?
        guard let stopped = release(id, connection: &connection) else { return nil }
        guard let connection else { return stopped }
        return connection.wasGoing && connection.isCancelled()
    }

    /// ``release(_:)`` up to the registry letting the work go; a connection's state is left in
    /// `connection` to be read once this returns (and its own reference to the work is gone).
    private func release(_ id: UInt64, connection: inout (wasGoing: Bool, isCancelled: () -> Bool)?) -> Bool? {
        lock.lock()
        guard let (index, work) = unreleasedWork(id) else {
            lock.unlock()
            return nil
        }
        let detached = storage.slots[index].detached
        if detached && work.namesItsHandle {
            storage.slots[index].released = true
            lock.unlock()
            // Work that has ended already (or meanwhile, before its end saw the mark) frees it now.
            if work.isCancelled { freeIfReleased(id) }
            return false
        }
        // Marked first, so that this call is the one release that succeeds, also against one
        // that its own release function makes (a binding's finalizer) or another thread's.
        storage.slots[index].released = true
        lock.unlock()
        if !detached, let given = work as? TimerConnection {
            connection = (!given.isCancelled, given.isCancelledReader)
        }
        let stopped = !detached && work.giveUp()
        // The registry's reference goes here, after its lock: the work's deinit may cancel, and
        // wait for a callback that is calling into the registry. The slot may be free already
        // (a cancel or a loop's destroy from the release function).
        _ = remove(id, kind: .cancellable)
        return stopped
    }

    /// Frees a released handle whose work has ended (cancelled, or a countdown finished); does
    /// nothing for a handle the program still holds.
    func freeIfReleased(_ id: UInt64) {
        lock.lock()
        var freed: AnyObject?
        if let index = index(id), storage.slots[index].released {
            freed = storage.slots[index].object
            Self.free(index, in: &storage)
        }
        lock.unlock()
        _ = freed  // let go of outside the lock
    }

    /// Stores the work that `make` builds, given its handle (the source its callbacks report),
    /// under a new cancellable handle owned by `loopID`, then calls the start that `make` returns:
    /// nothing calls back before the handle names the work. A start that fails, or a loop
    /// destroyed meanwhile (whose sweep of its handles may have run before this one was stored),
    /// withdraws the handle and abandons the work (``RegisteredWork/abandon()``).
    func register(owner loopID: UInt64, of loop: Loop,
                  _ make: (UInt64) throws(CadenceError) -> (work: any RegisteredWork, start: () throws(CadenceError) -> Void))
        throws(CadenceError) -> UInt64 {
        let id = reserve(kind: .cancellable, owner: loopID)
        let made: (work: any RegisteredWork, start: () throws(CadenceError) -> Void)
        do throws(CadenceError) {
            made = try make(id)
        } catch {
            remove(reservedSlot: id)
            throw error
        }
        fill(id, with: made.work, starting: true)
        do throws(CadenceError) {
            try made.start()
        } catch {
            remove(id, kind: .cancellable)
            made.work.abandon()  // a registering call that fails calls nothing
            throw error
        }
        guard started(id) else {  // the loop's destroy left the slot and the work to this call
            made.work.abandon()
            throw .badHandle.with("loop must stay live during the call, got a loop destroyed meanwhile")
        }
        return id
    }

    /// Marks a registration's call as returning; false, freeing the slot, if its loop's destroy
    /// orphaned it meanwhile without ending its work. Under the lock, so that a destroy either
    /// comes before (the call fails, and nothing is called) or ends the work after (the call
    /// succeeded). A slot already free was released by the work's own first callback.
    private func started(_ id: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let index = index(id) else { return true }
        guard storage.slots[index].owner != 0 else {
            Self.free(index, in: &storage)  // the call still holds the work: no deinit here
            return false
        }
        storage.slots[index].starting = false
        return true
    }

    /// Frees a reserved handle that was never filled.
    private func remove(reservedSlot id: UInt64) {
        lock.lock()
        if let index = index(id), storage.slots[index].object == nil { Self.free(index, in: &storage) }
        lock.unlock()
    }
}

// MARK: The kinds

extension TimerSubscription: RegisteredWork {
    /// Ticks name the subscription as their source.
    var namesItsHandle: Bool { true }
    /// Giving up a subscription cancels it (one its publisher ended was not going).
    func giveUp() -> Bool { !isCancelled && cancel() }
    /// Ends the userdata of a subscription that calls a C function.
    func endWithLoop() { subscriber.life?.finish() }
    /// Unsubscribes without a release call.
    func abandon() {
        subscriber.life?.abandon()
        cancel()
    }
    /// Cancels, handing the key back.
    func cancelHandingBack() -> (stopped: Bool, key: Int) { cancel(handingBack: true) }
}

extension TimerConnection: RegisteredWork {
    /// A connection has no callbacks.
    var namesItsHandle: Bool { false }
    /// Nothing here: the connection's deinit, once the registry lets it go, stops the timer if it
    /// was the last handle (``TimerBroadcast/connectionGivenUp(number:)``), which
    /// ``HandleRegistry/release(_:)`` reads afterwards.
    func giveUp() -> Bool { false }
    /// A connection has no userdata.
    func endWithLoop() {}
    /// Cancels the connection (its loop is gone, or going).
    func abandon() { cancel() }
    /// Cancels: a connection has no handler, so no key.
    func cancelHandingBack() -> (stopped: Bool, key: Int) { (cancel(), 0) }
}

extension Poller: RegisteredWork {
    /// Polls name the poller as their source, and are finished through it.
    var namesItsHandle: Bool { true }
    /// Giving up a poller cancels it.
    func giveUp() -> Bool { !isCancelled && cancel() }
    /// Ends the userdata of a poller that calls a C function.
    func endWithLoop() { core.endLife() }
    /// Cancels without a release call.
    func abandon() { core.abandon() }
    /// Cancels, handing the key back.
    func cancelHandingBack() -> (stopped: Bool, key: Int) { core.cancel(handingBack: true) }
}
