/// The shared part of a timer publisher: its configuration, its subscribers, and the timer that
/// feeds them. Every subscriber of one connection receives the same ticks.
///
/// Lock order: this object's lock, then the loop's. Ticks are delivered with neither held.
// Unchecked: its `var`s, and each subscriber's `receive`, are guarded by `lock` (one lock for
// state in several objects, which a `Mutex` owning one value does not express).
final class TimerBroadcast: @unchecked Sendable {
    enum State {
        case idle
        case connected(TimerID)
        case cancelled
    }

    let loop: Loop
    let interval: Nanoseconds
    let tolerance: Nanoseconds
    let modeIndex: Int
    /// Connects on the first subscriber and disconnects after the last, instead of waiting for
    /// `connect()`; never reaches `.cancelled`.
    let autoconnects: Bool

    private let lock = Lock()
    private var state = State.idle
    private var policy: MissedTickPolicy  // guarded by `lock`; used by the next timer started
    /// How many timers connections have started; the current one's number while connected.
    private var connections: UInt64 = 0  // guarded by `lock`
    /// Replaced, never changed in place: a delivery on the loop's thread iterates the array it
    /// took while other threads subscribe and cancel.
    private var subscribers: [TimerSubscriber] = []
    /// The connection handle that ``connectionHandle()`` hands out while any reference to it is
    /// held, and its number: a handle given up stops the timer only if no newer one was made
    /// meanwhile (a connect racing with the last handle's deinit).
    private weak var handle: TimerConnection?
    private var handleNumber: UInt64 = 0
    /// Whether a connection handle was detached: then giving up the handles leaves the timer running.
    private var isDetached = false

    init(loop: Loop, interval: Nanoseconds, tolerance: Nanoseconds, missedTicks: MissedTickPolicy,
         modeIndex: Int, autoconnects: Bool) {
        self.loop = loop
        self.interval = interval
        self.tolerance = tolerance
        policy = missedTicks
        self.modeIndex = modeIndex
        self.autoconnects = autoconnects
    }

    /// idle → connected (arms a timer on a fresh grid); connected stays; cancelled stays.
    /// Returns whether the timer runs afterwards.
    private func connectLocked() -> Bool {
        noticeClosedLoopLocked()
        switch state {
        case .connected: return true
        case .cancelled: return false
        case .idle:
            // The timer holds the broadcast until it is cancelled, as a run loop holds its timers.
            // Each connection is numbered, so that a tick of an earlier timer still being delivered
            // when an autoconnect publisher stopped and started again reaches nobody of the new one.
            connections &+= 1
            let connection = connections
            guard let id = try? loop.arm(delay: interval, interval: interval, tolerance: tolerance,
                                         missedTicks: policy, modeIndex: modeIndex,
                                         action: .closure { [self] in deliver($0, connection: connection) })
            else {
                // The loop is closed: a connectable publisher can never run now.
                if !autoconnects { state = .cancelled }
                return false
            }
            state = .connected(id)
            return true
        }
    }

    /// Stops the timer. A connectable publisher moves to `.cancelled` for good; an autoconnect one
    /// back to `.idle`. Returns false if no timer was running.
    @discardableResult
    func disconnect() -> Bool {
        let id = runningTimer
        let changed = lock.withLock { disconnectLocked(final: !autoconnects) }
        waitForDelivery(id)
        return changed
    }

    /// The timer of the current connection, if any.
    private var runningTimer: TimerID? {
        lock.withLock { if case .connected(let id) = state { id } else { nil } }
    }

    /// Waits, outside this object's lock, for a tick of timer `id` being delivered on the loop's
    /// thread, so that once a cancel returns no subscriber callback is still starting.
    private func waitForDelivery(_ id: TimerID?) {
        if let id { loop.waitForCallback(of: id) }
    }

    /// Connects, and returns the handle of the connection: the one already handed out while a
    /// reference to it is held (every `connect()` names the same connection), else a new one.
    func connectionHandle() -> TimerConnection {
        lock.withLock {
            _ = connectLocked()
            if let handle { return handle }
            handleNumber &+= 1
            let made = TimerConnection(broadcast: self, number: handleNumber)
            handle = made
            return made
        }
    }

    /// Connection handle `number` was given up: stops the timer, as a cancel, unless a newer
    /// handle was made since or a handle was detached.
    func connectionGivenUp(number: UInt64) {
        _ = cancelConnection(givenUp: number)
    }

    /// Lets the connection run on once its handles are given up.
    func detachConnection() {
        lock.withLock { isDetached = true }
    }

    /// Cancels a connectable publisher for good; returns false if it was already cancelled (or,
    /// for the deinit of handle `givenUp`, if that handle is not the last or was detached).
    func cancelConnection(givenUp number: UInt64? = nil) -> Bool {
        let id = runningTimer
        let changed: Bool = lock.withLock {
            if let number, number != handleNumber || isDetached { return false }
            noticeClosedLoopLocked()
            if case .cancelled = state { return false }
            _ = disconnectLocked(final: true)
            return true
        }
        waitForDelivery(id)
        return changed
    }

    private func disconnectLocked(final: Bool) -> Bool {
        guard case .connected(let id) = state else {
            if final { state = .cancelled }
            return false
        }
        state = final ? .cancelled : .idle
        return loop.disarm(id)
    }

    /// A closed loop cancels its timers without telling their publishers; catch up with that.
    private func noticeClosedLoopLocked() {
        if case .connected(let id) = state, !loop.isArmed(id) {
            state = autoconnects ? .idle : .cancelled
        }
    }

    var isCancelled: Bool {
        lock.withLock {
            noticeClosedLoopLocked()
            if case .cancelled = state { return true } else { return false }
        }
    }

    var isConnected: Bool {
        lock.withLock {
            noticeClosedLoopLocked()
            if case .connected = state { return true } else { return false }
        }
    }
    /// What the next timer started does about missed fire dates; a running one keeps its own.
    var missedTicks: MissedTickPolicy {
        get { lock.withLock { policy } }
        set { lock.withLock { policy = newValue } }
    }

    /// Whether `subscriber` can still receive: subscribed, the publisher not cancelled for good
    /// (a cancelled connectable publisher never ticks again, whatever handles are held), and the
    /// loop open (its close cancelled the timer that feeds it).
    func isSubscribed(_ subscriber: TimerSubscriber) -> Bool {
        lock.withLock { () -> Bool in
            noticeClosedLoopLocked()
            if case .cancelled = state { return false }
            return subscriber.isActive
        } && !loop.isClosed
    }
    var subscriberCount: Int { lock.withLock { subscribers.count } }

    func subscribe(_ receive: @escaping @Sendable (TimerTick) -> Void) -> TimerSubscription {
        let subscription = TimerSubscription(broadcast: self, subscriber: TimerSubscriber(receive))
        add(subscription.subscriber)
        return subscription
    }

    /// Starts delivering to `subscriber` (the first of an autoconnect publisher connects it).
    func add(_ subscriber: TimerSubscriber) {
        lock.withLock {
            subscribers = subscribers + [subscriber]
            if autoconnects && subscribers.count == 1 { _ = connectLocked() }
        }
    }

    /// Removes a subscriber: `removed` if this call took it out (false if it was already gone),
    /// `stopped` if it was still live too (not ended with its publisher or its loop). From another
    /// thread, returns only once a tick being delivered has been delivered.
    func unsubscribe(_ subscriber: TimerSubscriber) -> (removed: Bool, stopped: Bool) {
        let id = runningTimer
        let (removed, live): (Bool, Bool) = lock.withLock {
            guard subscribers.contains(where: { $0 === subscriber }) else { return (false, false) }
            subscribers = subscribers.filter { $0 !== subscriber }
            subscriber.receive = nil
            if autoconnects && subscribers.isEmpty { _ = disconnectLocked(final: false) }
            noticeClosedLoopLocked()
            if case .cancelled = state { return (true, false) }  // it had ended with its publisher
            return (true, true)
        }
        // Only a subscriber that was still there can have a callback starting: one removed
        // before (a second cancel, a release after a cancel) returns at once.
        if live { waitForDelivery(id) }
        return (removed, live && !loop.isClosed)
    }

    /// Sends one tick of connection number `connection` to every subscriber present when it fired;
    /// one cancelled meanwhile is skipped, and so is everyone once that connection has ended (even
    /// if the publisher connected again since: a cancel of a subscriber of the new connection
    /// waits for the new timer's callbacks only, so the old one must not reach it).
    private func deliver(_ tick: TimerTick, connection: UInt64) {
        let receivers = lock.withLock { subscribers }
        for subscriber in receivers {
            let receive = lock.withLock { isConnectedLocked && connections == connection ? subscriber.receive : nil }
            receive?(tick)
        }
    }

    private var isConnectedLocked: Bool {
        if case .connected = state { return true } else { return false }
    }
}
