import Cadence
import CCadenceHeader

// C's `{function, userdata, release}` as the engine's `TimerHandler`, one struct per callback type:
// three words each, which the engine keeps in a timer's slot without allocating. `release` is the
// loop's release function when the timer was armed (cadence_loop_set_callbacks), called with the
// userdata once if the timer ends without a final call.

/// A `cadence_tick_fn`: called with a `cadence_tick` whose source is the timer's handle.
struct TickCallback: TimerHandler, @unchecked Sendable {  // plain words; the caller answers for userdata
    let function: cadence_tick_fn
    let userdata: UnsafeMutableRawPointer?
    let release: cadence_release_fn?

    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {
        var tick = cadence_tick(fire_date: tick.fireDateSeconds, skipped: UInt64(tick.skipped),
                                source: cadence_cancellable(id: timer), final: final ? 1 : 0)
        function(&tick, userdata)
    }

    var observesEnd: Bool { release != nil }
    func ended() { release?(userdata) }
    var handBackKey: Int? { stealableKey(userdata) }
}

/// A loop's `cadence_fire_fn` (a binding's one function for every timer): called with the userdata,
/// the fire date, the skipped ticks and whether it was the last call. Batched by
/// cadence_loop_set_fire_batch. Either's userdata is handed back by cadence_cancel_steal.
struct FireCallback: TimerHandler, @unchecked Sendable {  // plain words, as TickCallback
    let function: cadence_fire_fn
    let userdata: UnsafeMutableRawPointer?
    let release: cadence_release_fn?

    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {
        function(userdata, tick.fireDateSeconds, UInt64(tick.skipped), final ? 1 : 0)
    }

    var observesEnd: Bool { release != nil }
    func ended() { release?(userdata) }

    /// The userdata as cadence_cancel_steal's integer: none for NULL or a negative `intptr_t`
    /// (the result's sign tells errors apart).
    var handBackKey: Int? { stealableKey(userdata) }

    func batchWord(kind: UInt) -> UInt? {
        UInt(bitPattern: unsafeBitCast(function, to: UnsafeRawPointer.self)) == kind ? UInt(bitPattern: userdata) : nil
    }
}

/// A userdata as cadence_cancel_steal's integer: none for NULL or a negative `intptr_t` (the
/// result's sign tells errors apart).
@inline(__always)
private func stealableKey(_ userdata: UnsafeMutableRawPointer?) -> Int? {
    let value = Int(bitPattern: userdata)
    return value > 0 ? value : nil
}

/// The handler of a C registering call given `fn` (NULL: the loop's fire function `fire`, if set)
/// and `userdata`, releasing with `release`.
///
/// - Throws: ``CadenceError/invalidArgument`` for a NULL `fn` on a loop without a fire function.
@inline(__always)
func timerCallback(_ fn: cadence_tick_fn?, _ userdata: UnsafeMutableRawPointer?, fire: UnsafeRawPointer?,
                   release: TimerFunction.Release?) throws(CadenceError) -> TimerAction {
    if let fn { return TimerAction(TickCallback(function: fn, userdata: userdata, release: release)) }
    guard let fire else { throw .nullCallback() }
    return TimerAction(FireCallback(function: unsafeBitCast(fire, to: cadence_fire_fn.self), userdata: userdata,
                                    release: release))
}

/// The handler of the loop's fire function `fire` with `userdata` (cadence_loop_schedule_default).
///
/// - Throws: ``CadenceError/invalidArgument`` on a loop without a fire function.
@inline(__always)
func fireCallback(_ userdata: UnsafeMutableRawPointer?, fire: UnsafeRawPointer?,
                  release: TimerFunction.Release?) throws(CadenceError) -> TimerAction {
    guard let fire else { throw .noFireFunction() }
    return TimerAction(FireCallback(function: unsafeBitCast(fire, to: cadence_fire_fn.self), userdata: userdata,
                                    release: release))
}
