import Cadence
import CCadenceHeader

@c @implementation
public func cadence_loop_schedule(_ loopHandle: cadence_loop, _ delay: Double, _ tolerance: Double,
                                  _ mode: UnsafePointer<CChar>?, _ fn: cadence_tick_fn?,
                                  _ userdata: UnsafeMutableRawPointer?,
                                  _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        let mode = try CCadence.mode(mode)
        out.pointee = cadence_cancellable(id: try Handles.schedule(
            loop: loopHandle.id, after: delay, interval: nil, tolerance: tolerance, in: mode, missedTicks: .skip,
            tickRegistration(fn, userdata)))
    }
}

@c @implementation
public func cadence_loop_schedule_repeating(_ loopHandle: cadence_loop, _ delay: Double, _ interval: Double,
                                            _ tolerance: Double, _ missedTicks: Int32,
                                            _ mode: UnsafePointer<CChar>?, _ fn: cadence_tick_fn?,
                                            _ userdata: UnsafeMutableRawPointer?,
                                            _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        guard let policy = MissedTickPolicy(rawValue: missedTicks) else { throw .badPolicy("missed_ticks", missedTicks) }
        let mode = try CCadence.mode(mode)
        out.pointee = cadence_cancellable(id: try Handles.schedule(
            loop: loopHandle.id, after: delay, interval: interval, tolerance: tolerance, in: mode, missedTicks: policy,
            tickRegistration(fn, userdata)))
    }
}

@c @implementation
public func cadence_cancel(_ handle: cadence_cancellable) -> Int32 {
    guard let outcome = Handles.cancel(handle.id, handingBack: false) else { return failedCancel(handle.id, live: false) }
    return outcome.stopped ? 0 : failedCancel(handle.id, live: true)
}

@c @implementation
public func cadence_is_cancelled(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        guard let cancelled = HandleRegistry.shared.isCancelled(handle.id) else {
            throw .deadHandle("cancellable", handle.id, kind: "cancellable")
        }
        try write(cancelled ? 1 : 0, to: out)
    }
}

@c @implementation
public func cadence_cancel_steal(_ handle: cadence_cancellable) -> Int {
    guard let outcome = Handles.cancel(handle.id, handingBack: true) else {
        return Int(failedCancel(handle.id, live: false))
    }
    return outcome.stopped ? outcome.key : Int(failedCancel(handle.id, live: true))
}

@c @implementation
public func cadence_cancellable_release(_ handle: cadence_cancellable) -> Int32 {
    guard handle.id != 0 else { return 0 }
    // A userdata to release is released inside this call (cadence_loop_set_callbacks).
    return Handles.release(handle.id) != nil ? 0 : staleRelease
}

@c @implementation
public func cadence_cancellable_release_stopping(_ handle: cadence_cancellable) -> Int32 {
    guard handle.id != 0 else { return 0 }
    return Handles.release(handle.id).map { $0 ? 1 : 0 } ?? staleRelease
}

/// The failure of `cadence_cancel` (named by `function`): a
/// cancellable cancelled already (`live`) or a dead handle. One small call on the error path, so
/// that these hot exports do no more work than before on success.
@inline(never)
private func failedCancel(_ id: UInt64, live: Bool, _ function: StaticString = #function) -> Int32 {
    guard live else { return fail(.deadHandle("cancellable", id, kind: "cancellable"), function) }
    return fail(.alreadyCancelled.with("cancellable must not be cancelled already, got one that was "
                                       + "(cancelled before, a one-shot that has fired, or a countdown "
                                       + "that has finished)"), function)
}
