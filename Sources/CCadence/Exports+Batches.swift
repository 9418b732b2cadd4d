import Cadence
import CCadenceHeader

// Many starts or cancels in one call, for a binding whose every call into C costs more than the
// engine's work for it (Python's ctypes: about 0.7 us a call): cadence.h, "Callbacks per loop".
// Each record does what the single call would, through the same engine functions; only the
// crossing is shared.

@c @implementation
public func cadence_loop_schedule_transient_batch(_ loopHandle: cadence_loop, _ count: Int,
                                                  _ fireDates: UnsafePointer<Double>?,
                                                  _ tolerances: UnsafePointer<Double>?,
                                                  _ userdata: UnsafePointer<UnsafeMutableRawPointer?>?,
                                                  _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    guard count >= 0 else { return fail(.hugeCount(count)) }
    guard count > 0 else { return 0 }
    guard let fireDates else { return fail(.null("fire_dates")) }
    guard let tolerances else { return fail(.null("tolerances")) }
    guard let userdata else { return fail(.null("userdata")) }
    guard let out else { return fail(.null("out")) }
    var first: Int32 = 0
    for index in 0..<count {
        do {
            out[index] = cadence_cancellable(id: try Handles.scheduleTransient(
                loop: loopHandle.id, at: fireDates[index], tolerance: tolerances[index],
                fireRegistration(userdata[index])))
        } catch {
            out[index] = cadence_cancellable(id: 0)
            if first == 0 { first = failedRecord(error, index) }
        }
    }
    return first
}

@c @implementation
public func cadence_cancel_steal_batch(_ handles: UnsafePointer<cadence_cancellable>?, _ count: Int,
                                       _ out: UnsafeMutablePointer<Int>?) -> Int32 {
    guard count >= 0 else { return fail(.hugeCount(count)) }
    guard count > 0 else { return 0 }
    guard let handles else { return fail(.null("handles")) }
    guard let out else { return fail(.null("out")) }
    // A run of one loop's timers under one hold of the locks, each slot asked for ahead of its
    // cancel; any other handle alone.
    handles.withMemoryRebound(to: UInt64.self, capacity: count) { ids in
        let ids = UnsafeBufferPointer(start: ids, count: count)
        var index = 0
        while index < count {
            let taken = Handles.cancelTimerRun(ids, from: index) { at, outcome in out[at] = stealResult(outcome) }
            if taken > 0 {
                index += taken
            } else {
                out[index] = stealResult(Handles.cancel(ids[index], handingBack: true))
                index += 1
            }
        }
    }
    return 0
}

/// What `cadence_cancel_steal` returns for a cancel's outcome: the key handed back, 0,
/// `CADENCE_EALREADY` or `CADENCE_EBADF`.
@inline(__always)
private func stealResult(_ outcome: (stopped: Bool, key: Int)?) -> Int {
    outcome.map { $0.stopped ? $0.key : Int(CadenceError.alreadyCancelled.code) } ?? Int(CadenceError.badHandle.code)
}

/// The first failed record of `cadence_loop_schedule_transient_batch`: its error, as the thread's
/// last error message naming the record. One call on the error path only.
@inline(never)
private func failedRecord(_ error: CadenceError, _ index: Int) -> Int32 {
    fail(CadenceError(code: error.code, message: "record \(index): \(error.message)"),
         "cadence_loop_schedule_transient_batch")
}
