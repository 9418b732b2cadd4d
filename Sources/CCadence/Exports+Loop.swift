import Cadence
import CCadenceHeader

func lookUpLoop(_ handle: cadence_loop) throws(CadenceError) -> Loop {
    guard let loop = HandleRegistry.shared.loop(handle.id) else { throw .deadHandle("loop", handle.id, kind: "loop") }
    return loop
}

@c @implementation
public func cadence_loop_create(_ out: UnsafeMutablePointer<cadence_loop>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        out.pointee = cadence_loop(id: try HandleRegistry.shared.insert(try Loop()))
    }
}

@c @implementation
public func cadence_loop_close(_ handle: cadence_loop) -> Int32 { closeLoop(handle) }

/// `cadence_loop_close` and its former name, `cadence_loop_destroy`; `function` names the call in
/// the thread's last error message.
func closeLoop(_ handle: cadence_loop, _ function: StaticString = #function) -> Int32 {
    guard handle.id != 0 else { return 0 }
    return cResult(function) { () throws(CadenceError) in try HandleRegistry.shared.destroyLoop(handle.id) }
}

@c @implementation
public func cadence_loop_run(_ handle: cadence_loop, _ mode: UnsafePointer<CChar>?, _ seconds: Double) -> Int32 {
    cResult { () throws(CadenceError) in
        let loop = try lookUpLoop(handle)
        try loop.run(mode: try CCadence.mode(mode), for: seconds)
    }
}

@c @implementation
public func cadence_loop_run_until_idle(_ handle: cadence_loop, _ mode: UnsafePointer<CChar>?) -> Int32 {
    cResult { () throws(CadenceError) in
        let loop = try lookUpLoop(handle)
        try loop.runUntilIdle(mode: try CCadence.mode(mode))
    }
}

@c @implementation
public func cadence_loop_stop(_ handle: cadence_loop) -> Int32 {
    cResult { () throws(CadenceError) in try lookUpLoop(handle).stop() }
}

@c @implementation
public func cadence_loop_add_mode(_ handle: cadence_loop, _ mode: UnsafePointer<CChar>?) -> Int32 {
    cResult { () throws(CadenceError) in try lookUpLoop(handle).addMode(try CCadence.mode(mode)) }
}

@c @implementation
public func cadence_loop_add_common_mode(_ handle: cadence_loop, _ mode: UnsafePointer<CChar>?) -> Int32 {
    cResult { () throws(CadenceError) in try lookUpLoop(handle).addCommonMode(try CCadence.mode(mode)) }
}

@c @implementation
public func cadence_loop_now(_ handle: cadence_loop, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try lookUpLoop(handle).nowSeconds, to: out)
    }
}

@c @implementation
public func cadence_loop_wakeups(_ handle: cadence_loop, _ out: UnsafeMutablePointer<UInt64>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try lookUpLoop(handle).wakeups, to: out)
    }
}

@c @implementation
public func cadence_loop_armed_timers(_ handle: cadence_loop, _ out: UnsafeMutablePointer<UInt64>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(UInt64(try lookUpLoop(handle).armedTimerCount), to: out)
    }
}

@c @implementation
public func cadence_loop_start_thread(_ handle: cadence_loop, _ mode: UnsafePointer<CChar>?) -> Int32 {
    cResult { () throws(CadenceError) in try lookUpLoop(handle).startThread(mode: try CCadence.mode(mode)) }
}

@c @implementation
public func cadence_loop_stop_thread(_ handle: cadence_loop) -> Int32 {
    cResult { () throws(CadenceError) in try lookUpLoop(handle).stopThread() }
}

@c @implementation
public func cadence_loop_has_thread(_ handle: cadence_loop, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try lookUpLoop(handle).hasThread ? 1 : 0, to: out)
    }
}

@c @implementation
public func cadence_loop_create_virtual(_ out: UnsafeMutablePointer<cadence_loop>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        out.pointee = cadence_loop(id: try HandleRegistry.shared.insert(Loop.virtual()))
    }
}

@c @implementation
public func cadence_loop_jump_clock(_ handle: cadence_loop, _ seconds: Double) -> Int32 {
    jumpClock(handle, seconds)
}

/// `cadence_loop_jump_clock` and its former name, `cadence_loop_advance_clock`.
func jumpClock(_ handle: cadence_loop, _ seconds: Double, _ function: StaticString = #function) -> Int32 {
    cResult(function) { () throws(CadenceError) in try lookUpLoop(handle).jumpClock(by: seconds) }
}

@c @implementation
public func cadence_loop_age_timer_slots(_ handle: cadence_loop, _ reuses: UInt32) -> Int32 {
    cResult { () throws(CadenceError) in try lookUpLoop(handle).ageTimerSlots(by: reuses) }
}
