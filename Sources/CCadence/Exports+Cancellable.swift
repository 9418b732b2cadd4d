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
        out.pointee = try scheduleTimer(loopHandle, fn, userdata) { loop, function throws(CadenceError) in
            try loop.scheduleHandle(after: delay, interval: nil, tolerance: tolerance, in: mode, missedTicks: .skip,
                                    function: function)
        }
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
        out.pointee = try scheduleTimer(loopHandle, fn, userdata) { loop, function throws(CadenceError) in
            try loop.scheduleHandle(after: delay, interval: interval, tolerance: tolerance, in: mode,
                                    missedTicks: policy, function: function)
        }
    }
}

/// Arms the timer that `arm` makes for `fn` (NULL: the loop's fire function) on the loop behind
/// `loopHandle`, behind a new handle that the timer's ticks name as their source.
@inline(__always)
private func scheduleTimer(_ loopHandle: cadence_loop, _ fn: cadence_tick_fn?, _ userdata: UnsafeMutableRawPointer?,
                           _ arm: (Loop, TimerFunction) throws(CadenceError) -> UInt64) throws(CadenceError)
    -> cadence_cancellable {
    let function = fn.map { TimerFunction(invoke: invokeTickFunction, function: unsafeBitCast($0, to: UnsafeRawPointer.self),
                                          userdata: userdata) }
        ?? TimerFunction(invoke: invokeFireFunction, function: nil, userdata: userdata)
    return cadence_cancellable(id: try HandleTable.shared.insertTimer(loop: loopHandle.id) { loop throws(CadenceError) in
        try arm(loop, function)
    })
}

/// Calls a `cadence_tick_fn` kept by the engine as plain words (see `TimerFunction`).
private let invokeTickFunction: TimerFunction.Invoke = { function, userdata, source, fireDate, skipped, final in
    var tick = cadence_tick(fire_date: fireDate, skipped: skipped, source: cadence_cancellable(id: source), final: final)
    unsafeBitCast(function, to: cadence_tick_fn.self)(&tick, userdata)
}

@c @implementation
public func cadence_cancel(_ handle: cadence_cancellable) -> Int32 {
    if HandleTable.isTimer(handle.id) {
        guard let outcome = HandleTable.shared.cancelTimer(handle.id) else { return failedCancel(handle.id, live: false) }
        return outcome.stopped ? 0 : failedCancel(handle.id, live: true)
    }
    return cancelCancellable(handle.id)
}

/// `cadence_cancel` (or, named by `function`, `cadence_cancel_steal`) of a handle that is not a
/// scheduled timer's.
private func cancelCancellable(_ id: UInt64, _ function: StaticString = #function) -> Int32 {
    guard let cancellable = HandleTable.shared.cancellable(id) else { return failedCancel(id, live: false, function) }
    let cancelled = cancellable.cancel()
    cancellable.endIfReleased()  // a released, detached handle cancelled from its callback
    return cancelled ? 0 : failedCancel(id, live: true, function)
}

@c @implementation
public func cadence_is_cancelled(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        if let ended = HandleTable.shared.timerHasEnded(handle.id) { return try write(ended ? 1 : 0, to: out) }
        guard let cancellable = HandleTable.shared.cancellable(handle.id) else {
            throw .deadHandle("cancellable", handle.id, kind: "cancellable")
        }
        try write(cancellable.isCancelled ? 1 : 0, to: out)
    }
}

@c @implementation
public func cadence_cancel_steal(_ handle: cadence_cancellable) -> Int {
    guard HandleTable.isTimer(handle.id) else { return Int(cancelCancellable(handle.id)) }  // never steals
    guard let outcome = HandleTable.shared.cancelTimer(handle.id, stealing: true) else {
        return Int(failedCancel(handle.id, live: false))
    }
    return outcome.stopped ? outcome.stolen : Int(failedCancel(handle.id, live: true))
}

@c @implementation
public func cadence_cancellable_release(_ handle: cadence_cancellable) -> Int32 {
    guard handle.id != 0 else { return 0 }
    if HandleTable.isTimer(handle.id) {
        return HandleTable.shared.cancelTimer(handle.id, givingUp: true) != nil ? 0 : staleRelease
    }
    guard let cancellable = HandleTable.shared.cancellable(handle.id) else { return staleRelease }
    if cancellable.keepsSlotWhenReleased {
        guard cancellable.markReleased() else { return staleRelease }
        // Work that has ended already (or meanwhile, before its end saw the mark) frees it now.
        if cancellable.isCancelled { cancellable.endIfReleased() }
        return 0
    }
    // A userdata to release is released inside this call (cadence_loop_set_callbacks).
    if cancellable.cancelsWhenReleased { _ = cancellable.cancel() }
    // The handle's reference to the engine's object goes here, after the table's lock: its
    // deinit may cancel, and wait for a callback that is calling into the table.
    guard HandleTable.shared.remove(handle.id, kind: .cancellable) != nil else {
        return staleRelease
    }
    return 0
}

/// The failure of `cadence_cancel` (named by `function`): a
/// cancellable cancelled already (`live`) or a dead handle. One small call on the error path, so
/// that these hot exports do no more work than before on success.
@inline(never)
private func failedCancel(_ id: UInt64, live: Bool, _ function: StaticString = #function) -> Int32 {
    guard live else { return fail(.deadHandle("cancellable", id, kind: "cancellable"), function) }
    return fail(.alreadyCancelled.with("cancellable must not be cancelled already, got one that was "
                                       + "(cancelled before, or a one-shot that has fired)"), function)
}
