import Cadence
import CCadenceHeader

@c @implementation
public func cadence_countdown_start(_ loopHandle: cadence_loop, _ deadline: Double, _ tick: Double,
                                    _ fn: cadence_countdown_fn?, _ userdata: UnsafeMutableRawPointer?,
                                    _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let fn else { throw .null("fn") }
        guard let out else { throw .null("out") }
        let function = CountdownFunction(invoke: invokeCountdownFunction, function: unsafeBitCast(fn, to: UnsafeRawPointer.self),
                                         userdata: userdata)
        out.pointee = cadence_cancellable(id: try HandleRegistry.shared.startCountdown(function, loop: loopHandle.id,
                                                                                     deadline: deadline, tick: tick))
    }
}

/// Calls a `cadence_countdown_fn` kept by the engine as plain words (see `CountdownFunction`).
private let invokeCountdownFunction: CountdownFunction.Invoke = { function, userdata, source, remaining, finished, date in
    var event = cadence_countdown_event(remaining: remaining, finished: finished, date: date,
                                        source: cadence_cancellable(id: source))
    unsafeBitCast(function, to: cadence_countdown_fn.self)(&event, userdata)
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
