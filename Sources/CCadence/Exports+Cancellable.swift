import Cadence
import CCadenceHeader

@c @implementation
public func cadence_loop_schedule(_ loopHandle: cadence_loop, _ delay: Double, _ tolerance: Double,
                                  _ mode: UnsafePointer<CChar>?, _ fn: cadence_tick_fn?,
                                  _ userdata: UnsafeMutableRawPointer?,
                                  _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let fn, let out else { throw .invalidArgument }
        let loop = try lookUpLoop(loopHandle)
        let mode = try CCadence.mode(mode)
        out.pointee = cadence_cancellable(id: try HandleTable.shared.insert(kind: .cancellable, owner: loopHandle.id, of: loop) {
            box throws(CadenceError) in
            try loop.schedule(after: delay, tolerance: tolerance, in: mode, tickForwarder(fn, userdata, box))
        })
    }
}

@c @implementation
public func cadence_cancel(_ handle: cadence_cancellable) -> Int32 {
    guard let object = HandleTable.shared.lookUp(handle.id, kind: .cancellable)?.object else {
        return CadenceError.badHandle.code
    }
    let changed: Bool
    switch object {
    case let subscription as TimerSubscription: changed = subscription.cancelIfActive()
    case let connection as TimerConnection: changed = connection.cancelIfActive()
    case let timer as ScheduledTimer: changed = timer.cancelIfActive()
    case let other as any Cancellable:  // countdowns and pollers
        changed = !other.isCancelled
        other.cancel()
    default: return CadenceError.badHandle.code
    }
    return changed ? 0 : CadenceError.alreadyCancelled.code
}

@c @implementation
public func cadence_is_cancelled(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .invalidArgument }
        guard let object = HandleTable.shared.lookUp(handle.id, kind: .cancellable)?.object as? any Cancellable else {
            throw .badHandle
        }
        try write(object.isCancelled ? 1 : 0, to: out)
    }
}

@c @implementation
public func cadence_cancellable_release(_ handle: cadence_cancellable) -> Int32 {
    guard handle.id != 0 else { return 0 }
    guard let object = HandleTable.shared.remove(handle.id, kind: .cancellable) else {
        return CadenceError.badHandle.code
    }
    // What only this handle can stop is stopped; connections and one-shots go on (see the header).
    switch object {
    case let subscription as TimerSubscription: subscription.cancel()
    case let countdown as AnyCancellable: countdown.cancel()
    case let poller as PollerHandle: poller.cancel()
    default: break
    }
    return 0
}
