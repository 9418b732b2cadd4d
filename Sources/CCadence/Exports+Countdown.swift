import Cadence
import CCadenceHeader

@c @implementation
public func cadence_countdown_start(_ loopHandle: cadence_loop, _ deadline: Double, _ tick: Double,
                                    _ fn: cadence_countdown_fn?, _ userdata: UnsafeMutableRawPointer?,
                                    _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let fn else { throw .null("fn") }
        guard let out else { throw .null("out") }
        out.pointee = cadence_cancellable(id: try HandleRegistry.shared.startCountdown(
            (functionBits(fn), UInt(bitPattern: userdata), 0),
            of: CountdownCallback.self, loop: loopHandle.id, deadline: deadline, tick: tick))
    }
}

@c @implementation
public func cadence_countdown_deadline(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try HandleRegistry.shared.countdown(handle.id).deadline, to: out)
    }
}

@c @implementation
public func cadence_countdown_tick(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try HandleRegistry.shared.countdown(handle.id).tick, to: out)
    }
}
