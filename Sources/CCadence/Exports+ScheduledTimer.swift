import Cadence
import CCadenceHeader

// Reset and introspection of the C API's scheduled timers, over `ScheduledTimer`.

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

/// The scheduled timer behind `handle`: ``CadenceError/notSupported`` for another live
/// cancellable, ``CadenceError/badHandle`` for anything else.
private func scheduledTimer(_ handle: cadence_cancellable) throws(CadenceError) -> ScheduledTimer {
    if let timer = HandleTable.shared.timer(handle.id) { return timer }
    throw HandleTable.shared.cancellable(handle.id) == nil ? .badHandle : .notSupported
}

/// The schedule of the valid scheduled timer behind `handle`, checked in the order of the other
/// getters (`out` first); ``CadenceError/alreadyCancelled`` once the timer is no longer valid.
private func schedule(of handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?)
    throws(CadenceError) -> (fireDate: Double, interval: Double, tolerance: Double) {
    guard out != nil else { throw .invalidArgument }
    guard let schedule = try scheduledTimer(handle).schedule else { throw .alreadyCancelled }
    return schedule
}
