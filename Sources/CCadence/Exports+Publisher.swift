import Cadence
import CCadenceHeader

/// A C `void *userdata`, carried into callbacks that may run on the loop's own thread; the C
/// caller is responsible for what it points to.
struct CallbackContext: @unchecked Sendable {
    let userdata: UnsafeMutableRawPointer?
    init(_ userdata: UnsafeMutableRawPointer?) { self.userdata = userdata }
}

/// Builds the closure that calls a C callback with a tick (never the final call: a subscription
/// ends by cancel), or with `fn` NULL the loop's fire function (`functions.fire`, read with the
/// release function beforehand), giving the handle the userdata's ``CallbackLife`` when the loop
/// has a release function.
func tickForwarder(_ fn: cadence_tick_fn?, _ userdata: UnsafeMutableRawPointer?, _ handle: CancellableHandle,
                   functions: (fire: UnsafeRawPointer?, release: TimerFunction.Release?)) -> @Sendable (TimerTick) -> Void {
    let source = CallbackSource(handle)
    let context = CallbackContext(userdata)
    let deliver: @Sendable (TimerTick) -> Void
    if let fn {
        deliver = { tick in
            var cTick = cadence_tick(fire_date: tick.fireDateSeconds, skipped: UInt64(tick.skipped),
                                     source: cadence_cancellable(id: source.id), final: 0)
            fn(&cTick, context.userdata)
        }
    } else {
        let fire = unsafeBitCast(functions.fire, to: cadence_fire_fn.self)  // checked by the caller
        deliver = { tick in fire(context.userdata, tick.fireDateSeconds, UInt64(tick.skipped), 0) }
    }
    guard let life = CallbackLife.make(functions.release, userdata) else {
        return { tick in if source.isLive { deliver(tick) } }
    }
    handle.life = life
    return { tick in
        guard source.isLive, life.begin() else { return }
        deliver(tick)
        life.end(final: false)
    }
}

private func lookUpPublisher(_ handle: cadence_publisher) throws(CadenceError) -> (AnyObject, owner: UInt64) {
    guard let found = HandleTable.shared.lookUp(handle.id, kind: .publisher) else {
        throw .deadHandle("publisher", handle.id, kind: "publisher")
    }
    return (found.object, found.owner)
}

@c @implementation
public func cadence_timer_publish(_ loopHandle: cadence_loop, _ interval: Double, _ tolerance: Double,
                                  _ mode: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<cadence_publisher>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        let loop = try lookUpLoop(loopHandle)
        let mode = try CCadence.mode(mode)
        out.pointee = cadence_publisher(id: try HandleTable.shared.insert(kind: .publisher, owner: loopHandle.id, of: loop) {
            _ throws(CadenceError) in try TimerPublisher(every: interval, tolerance: tolerance, on: loop, in: mode)
        })
    }
}

@c @implementation
public func cadence_publisher_autoconnect(_ handle: cadence_publisher, _ out: UnsafeMutablePointer<cadence_publisher>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        let (object, owner) = try lookUpPublisher(handle)
        guard let publisher = object as? TimerPublisher else { throw .autoconnectPublisher }
        out.pointee = cadence_publisher(id: try HandleTable.shared.insert(kind: .publisher, owner: owner, of: publisher.loop) {
            _ in publisher.autoconnect()
        })
    }
}

@c @implementation
public func cadence_publisher_subscribe(_ handle: cadence_publisher, _ fn: cadence_tick_fn?,
                                        _ userdata: UnsafeMutableRawPointer?,
                                        _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        let (object, owner) = try lookUpPublisher(handle)
        let loop: Loop
        let subscribe: (@escaping @Sendable (TimerTick) -> Void) -> TimerSubscription
        switch object {
        case let publisher as TimerPublisher: (loop, subscribe) = (publisher.loop, publisher.subscribe)
        case let publisher as AutoconnectTimerPublisher: (loop, subscribe) = (publisher.loop, publisher.subscribe)
        default: throw .deadHandle("publisher", handle.id, kind: "publisher")
        }
        guard !loop.isClosed else { throw .loopClosed() }
        let functions = loop.functions
        guard fn != nil || functions.fire != nil else { throw .nullCallback() }
        out.pointee = cadence_cancellable(id: try HandleTable.shared.insert(kind: .cancellable, owner: owner, of: loop) {
            handle in subscribe(tickForwarder(fn, userdata, handle, functions: functions))
        })
    }
}

@c @implementation
public func cadence_publisher_connect(_ handle: cadence_publisher, _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        let (object, owner) = try lookUpPublisher(handle)
        guard let publisher = object as? TimerPublisher else { throw .autoconnectPublisher }
        guard !publisher.loop.isClosed else { throw .loopClosed() }
        out.pointee = cadence_cancellable(id: try HandleTable.shared.insert(kind: .cancellable, owner: owner, of: publisher.loop) {
            _ in publisher.connect()
        })
    }
}

@c @implementation
public func cadence_publisher_release(_ handle: cadence_publisher) -> Int32 {
    guard handle.id != 0 else { return 0 }
    return HandleTable.shared.remove(handle.id, kind: .publisher) != nil ? 0 : staleRelease
}

@c @implementation
public func cadence_publisher_set_missed_ticks(_ handle: cadence_publisher, _ policy: Int32) -> Int32 {
    cResult { () throws(CadenceError) in
        let (object, _) = try lookUpPublisher(handle)
        guard let policy = MissedTickPolicy(rawValue: policy) else { throw .badPolicy("policy", policy) }
        switch object {
        case let publisher as TimerPublisher: publisher.missedTicks = policy
        case let publisher as AutoconnectTimerPublisher: publisher.missedTicks = policy
        default: throw .deadHandle("publisher", handle.id, kind: "publisher")
        }
    }
}

extension CadenceError {
    /// `connect` or `autoconnect` on an autoconnect publisher.
    @inline(never)
    fileprivate static var autoconnectPublisher: CadenceError {
        notSupported.with("publisher must be a connectable publisher, got an autoconnect publisher")
    }
}
