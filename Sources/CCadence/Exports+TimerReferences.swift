import Cadence
import CCadenceHeader

// Whether a scheduled timer keeps cadence_loop_run_until_idle going (libuv's uv_ref/uv_unref).

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
        guard out != nil else { throw .invalidArgument }
        try write(try scheduledTimer(handle).hasRef ? 1 : 0, to: out)
    }
}

/// The scheduled timer behind `handle`; ``CadenceError/notSupported`` for another live
/// cancellable (a subscription, a connection, a countdown, a poller).
private func scheduledTimer(_ handle: cadence_cancellable) throws(CadenceError) -> ScheduledTimer {
    if let timer = HandleTable.shared.timer(handle.id) { return timer }
    guard HandleTable.shared.cancellable(handle.id) == nil else { throw .notSupported }
    throw .badHandle
}
