import CCadenceHeader

// The former names of include/cadence.h ("Former names": deprecated in 0.4, removed in 0.5). Each
// does what its new name does; an error message names the function the program called.

@c @implementation
public func cadence_loop_destroy(_ handle: cadence_loop) -> Int32 { closeLoop(handle) }

@c @implementation
public func cadence_timer_publish(_ loopHandle: cadence_loop, _ interval: Double, _ tolerance: Double,
                                  _ mode: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<cadence_publisher>?) -> Int32 {
    createPublisher(loopHandle, interval, tolerance, mode, out)
}

@c @implementation
public func cadence_loop_advance_clock(_ handle: cadence_loop, _ seconds: Double) -> Int32 {
    jumpClock(handle, seconds)
}
