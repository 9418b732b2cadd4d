import Cadence
import CCadenceHeader

// The C API's scheduled timers beyond cancel: reset, introspection, and whether a timer keeps
// cadence_loop_run_until_idle going (libuv's uv_ref/uv_unref), over `ScheduledTimer`.

@c @implementation
public func cadence_timer_reset(_ handle: cadence_cancellable, _ delay: Double) -> Int32 {
    cResult { () throws(CadenceError) in try scheduledTimer(handle).reset(after: delay) }
}

@c @implementation
public func cadence_timer_fire_date(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in try write(try schedule(of: handle, out).fireDate, to: out) }
}

@c @implementation
public func cadence_timer_interval(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in try write(try schedule(of: handle, out).interval, to: out) }
}

@c @implementation
public func cadence_timer_tolerance(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in try write(try schedule(of: handle, out).tolerance, to: out) }
}

@c @implementation
public func cadence_timer_unref(_ handle: cadence_cancellable) -> Int32 {
    cResult { () throws(CadenceError) in try scheduledTimer(handle).unref() }
}

@c @implementation
public func cadence_timer_ref(_ handle: cadence_cancellable) -> Int32 {
    cResult { () throws(CadenceError) in try scheduledTimer(handle).ref() }
}

@c @implementation
public func cadence_timer_has_ref(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try scheduledTimer(handle).hasRef ? 1 : 0, to: out)
    }
}

/// The scheduled timer behind `handle`: ``CadenceError/notSupported`` for another live
/// cancellable (a subscription, a connection, a countdown, a poller), ``CadenceError/badHandle``
/// for anything else.
private func scheduledTimer(_ handle: cadence_cancellable) throws(CadenceError) -> ScheduledTimer {
    if let timer = HandleRegistry.shared.timer(handle.id) { return timer }
    guard HandleRegistry.shared.isCancelled(handle.id) == nil else {  // another live kind
        throw .notSupported.with("timer must be a scheduled timer (from cadence_loop_schedule or "
                                 + "cadence_loop_schedule_repeating), got another kind of cancellable")
    }
    throw .deadHandle("timer", handle.id, kind: "scheduled timer")
}

/// The schedule of the valid scheduled timer behind `handle`, checked in the order of the other
/// getters (`out` first); ``CadenceError/alreadyCancelled`` once the timer is no longer valid.
private func schedule(of handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?)
    throws(CadenceError) -> (fireDate: Double, interval: Double, tolerance: Double) {
    guard out != nil else { throw .null("out") }
    guard let schedule = try scheduledTimer(handle).schedule else { throw .timerEnded() }
    return schedule
}
