import FoundationEssentials

/// The C API's registrations other than scheduled timers, made in the engine: publishers behind
/// publisher handles; subscriptions, connections, countdowns and pollers behind cancellable
/// handles, each stored before it starts (``register(owner:of:_:)``) and made in the engine's
/// form for a C callback, which keeps the callback's contract itself (``RegisteredWork``).
extension HandleRegistry {
    /// Stores a publisher made on `loop` under a new publisher handle owned by `loopID`.
    ///
    /// - Throws: ``CadenceError/badHandle`` if the loop was destroyed meanwhile.
    package func insert(publisher: AnyObject, owner loopID: UInt64, of loop: Loop) throws(CadenceError) -> UInt64 {
        let id = insert(publisher, kind: .publisher, owner: loopID)
        guard !loop.isClosed else {
            remove(id, kind: .publisher)
            throw .badHandle.with("loop must stay live during the call, got a loop destroyed meanwhile")
        }
        return id
    }

    /// The publisher behind a live publisher handle: its broadcast, and the loop handle that owns it.
    private func broadcast(_ id: UInt64) throws(CadenceError) -> (broadcast: TimerBroadcast, owner: UInt64) {
        guard let (object, owner) = lookUp(id, kind: .publisher) else { throw .deadHandle("publisher", id, kind: "publisher") }
        switch object {
        case let publisher as TimerPublisher: return (publisher.broadcast, owner)
        case let publisher as AutoconnectTimerPublisher: return (publisher.broadcast, owner)
        default: throw .deadHandle("publisher", id, kind: "publisher")
        }
    }

    /// The connectable publisher behind a live publisher handle, and the loop handle that owns it.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead handle; ``CadenceError/notSupported`` for
    ///   an autoconnect publisher.
    package func connectable(_ id: UInt64) throws(CadenceError) -> (publisher: TimerPublisher, owner: UInt64) {
        guard let (object, owner) = lookUp(id, kind: .publisher) else { throw .deadHandle("publisher", id, kind: "publisher") }
        guard let publisher = object as? TimerPublisher else { throw .autoconnectPublisher }
        return (publisher, owner)
    }

    /// Sets the missed-tick policy of the publisher behind a live publisher handle to what
    /// `policy` makes of the caller's argument, checked once the handle is.
    package func setMissedTicks(publisher id: UInt64, _ policy: () throws(CadenceError) -> MissedTickPolicy)
        throws(CadenceError) {
        let (broadcast, _) = try broadcast(id)
        broadcast.missedTicks = try policy()
    }

    /// Subscribes a C registration's handler to the publisher behind a live publisher handle
    /// (``TimerBroadcast/handlerSubscription(_:source:)``); returns the subscription's handle.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead handle or a destroyed loop; what the
    ///   handler's ``PlainTimerHandler/armed(_:loop:)`` throws (no function on a loop without a
    ///   fire function).
    package func subscribe(_ handler: PlainHandler, publisher id: UInt64) throws(CadenceError) -> UInt64 {
        let (broadcast, owner) = try broadcast(id)
        return try register(owner: owner, of: broadcast.loop) { source throws(CadenceError) in
            let subscription = try broadcast.handlerSubscription(handler, source: source)
            return (subscription, { broadcast.add(subscription.subscriber) })
        }
    }

    /// Connects the connectable publisher behind a live publisher handle; returns a new handle to
    /// its connection.
    ///
    /// - Throws: as ``connectable(_:)``; ``CadenceError/badHandle`` for a destroyed loop.
    package func connect(publisher id: UInt64) throws(CadenceError) -> UInt64 {
        let (publisher, owner) = try connectable(id)
        guard !publisher.loop.isClosed else { throw .loopClosed() }
        return try register(owner: owner, of: publisher.loop) { _ in (publisher.connect(), {}) }
    }

    /// Starts a countdown that calls a C registration's handler of type `type` with `words` on the
    /// loop behind `loopID` (``Countdown/handlerSubscription(_:of:source:onFinish:)``); returns its handle.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead or destroyed loop;
    ///   ``CadenceError/invalidArgument`` for a bad deadline or tick.
    package func startCountdown(_ words: HandlerWords, of type: any PlainCountdownHandler.Type, loop loopID: UInt64,
                                deadline: Double, tick: Double) throws(CadenceError) -> UInt64 {
        guard let loop = loop(loopID) else { throw .deadHandle("loop", loopID, kind: "loop") }
        let countdown = loop.countdown(to: Date(timeIntervalSince1970: deadline), tick: tick)
        return try register(owner: loopID, of: loop) { source throws(CadenceError) in
            // The first value comes on the loop's next pass, possibly on the loop's thread before
            // this call returns: the handle names the countdown by then.
            let subscription = try countdown.handlerSubscription(words, of: type, source: source) { [self] in
                freeIfReleased(source)  // a released, detached countdown has finished
            }
            return (subscription, { () throws(CadenceError) in try countdown.start(subscription) })
        }
    }

    /// The deadline (seconds on the loop's clock) and tick of the countdown behind a live
    /// cancellable handle.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead handle or one of another kind.
    package func countdown(_ id: UInt64) throws(CadenceError) -> (deadline: Double, tick: Double) {
        guard let gate = work(id) as? SubscriptionGate<Int>, let (deadline, tick) = gate.stream as? (Date, Double) else {
            throw .deadHandle("countdown", id, kind: "countdown")
        }
        return (deadline.timeIntervalSince1970, tick)
    }

    /// Starts a poller that calls a C registration's handler of type `type` with `words` on the
    /// loop behind `loopID` (``Poller/calling(_:of:every:tolerance:on:source:)``); returns its handle.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead or destroyed loop;
    ///   ``CadenceError/invalidArgument`` for a bad interval or tolerance (nil: 10 % of the interval).
    package func startPoller(_ words: HandlerWords, of type: any PlainPollHandler.Type, loop loopID: UInt64,
                             interval: Double, tolerance: Double?) throws(CadenceError) -> UInt64 {
        guard let loop = loop(loopID) else { throw .deadHandle("loop", loopID, kind: "loop") }
        return try register(owner: loopID, of: loop) { source throws(CadenceError) in
            let poller = try Poller.calling(words, of: type, every: interval, tolerance: tolerance, on: loop,
                                            source: source)
            return (poller, { () throws(CadenceError) in try poller.start() })
        }
    }

    /// The poller behind a live cancellable handle.
    ///
    /// - Throws: ``CadenceError/badHandle`` for a dead handle or one of another kind.
    package func poller(_ id: UInt64) throws(CadenceError) -> Poller {
        guard let poller = work(id) as? Poller else { throw .deadHandle("poller", id, kind: "poller") }
        return poller
    }
}

extension CadenceError {
    /// `connect` or `autoconnect` on an autoconnect publisher.
    @inline(never)
    static var autoconnectPublisher: CadenceError {
        notSupported.with("publisher must be a connectable publisher, got an autoconnect publisher")
    }
}
