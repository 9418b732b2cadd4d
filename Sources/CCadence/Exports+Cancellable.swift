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
            handle throws(CadenceError) in
            try loop.schedule(after: delay, tolerance: tolerance, in: mode, tickForwarder(fn, userdata, handle))
        })
    }
}

@c @implementation
public func cadence_cancel(_ handle: cadence_cancellable) -> Int32 {
    guard let cancellable = HandleTable.shared.cancellable(handle.id) else { return CadenceError.badHandle.code }
    return cancellable.cancel() ? 0 : CadenceError.alreadyCancelled.code
}

@c @implementation
public func cadence_is_cancelled(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .invalidArgument }
        guard let cancellable = HandleTable.shared.cancellable(handle.id) else { throw .badHandle }
        try write(cancellable.isCancelled ? 1 : 0, to: out)
    }
}

@c @implementation
public func cadence_cancellable_release(_ handle: cadence_cancellable) -> Int32 {
    guard handle.id != 0 else { return 0 }
    guard let cancellable = HandleTable.shared.remove(handle.id, kind: .cancellable) as? CancellableHandle else {
        return CadenceError.badHandle.code
    }
    cancellable.release()
    return 0
}
