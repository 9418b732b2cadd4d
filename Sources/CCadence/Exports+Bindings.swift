import Cadence
import CCadenceHeader

// What a binding needs to keep no bookkeeping of its own (cadence.h, "Callbacks per loop"): the
// loop's fire and release functions, and the one-shot that calls the fire function.

@c @implementation
public func cadence_loop_set_callbacks(_ handle: cadence_loop, _ fire: cadence_fire_fn?,
                                       _ release: cadence_release_fn?) -> Int32 {
    cResult { () throws(CadenceError) in
        try lookUpLoop(handle).setHostFunctions((functionBits(fire), functionBits(release)))
    }
}

@c @implementation
public func cadence_loop_set_fire_batch(_ handle: cadence_loop, _ batch: cadence_fire_batch_fn?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard try lookUpLoop(handle).setFireBatch(batch.map(deliverFires)) else { throw .noFireFunction() }
    }
}

@c @implementation
public func cadence_loop_schedule_default(_ loopHandle: cadence_loop, _ delay: Double,
                                          _ userdata: UnsafeMutableRawPointer?) -> Int64 {
    do {  // a handle is below 2^60 (HandleRegistry+Timers.swift): positive as an Int64
        return Int64(bitPattern: try Handles.scheduleDefault(loop: loopHandle.id, after: delay,
                                                             fireRegistration(userdata)))
    } catch {
        return Int64(fail(error))
    }
}

@c @implementation
public func cadence_loop_schedule_transient(_ loopHandle: cadence_loop, _ fireDate: Double, _ tolerance: Double,
                                            _ userdata: UnsafeMutableRawPointer?,
                                            _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    guard let out else { return fail(.null("out")) }
    do {
        out.pointee = cadence_cancellable(id: try Handles.scheduleTransient(
            loop: loopHandle.id, at: fireDate, tolerance: tolerance, fireRegistration(userdata)))
        return 0
    } catch {
        return fail(error)
    }
}

/// A C batch function as the engine's ``DeliverFires``: the engine's records have
/// `cadence_fire_record`'s layout (checked by the tests of the batch), so they are passed as they are.
private func deliverFires(_ batch: @escaping cadence_fire_batch_fn) -> DeliverFires {
    { records, count, started in
        UnsafeMutableRawPointer(records).withMemoryRebound(to: cadence_fire_record.self, capacity: count) {
            batch($0, count, started)
        }
    }
}

/// A C function pointer as the word the engine keeps (0 for NULL).
@inline(__always)
func functionBits<F>(_ function: F?) -> UInt {
    function.map { UInt(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
}
