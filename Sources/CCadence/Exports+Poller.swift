import Cadence
import CCadenceHeader

@c @implementation
public func cadence_poller_start(_ loopHandle: cadence_loop, _ interval: Double, _ tolerance: Double,
                                 _ fn: cadence_poll_fn?, _ userdata: UnsafeMutableRawPointer?,
                                 _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let fn else { throw .null("fn") }
        guard let out else { throw .null("out") }
        let tolerance = tolerance == CADENCE_TOLERANCE_DEFAULT ? nil : tolerance
        out.pointee = cadence_cancellable(id: try HandleRegistry.shared.startPoller(
            (functionBits(fn), UInt(bitPattern: userdata), 0),
            of: PollCallback.self, loop: loopHandle.id, interval: interval, tolerance: tolerance))
    }
}

@c @implementation
public func cadence_poller_finish(_ handle: cadence_cancellable, _ number: UInt64) -> Int32 {
    cResult { () throws(CadenceError) in
        let poller = try HandleRegistry.shared.poller(handle.id)
        guard number <= UInt64(Int.max), poller.finish(poll: Int(number)) else {
            throw .alreadyCancelled.with("number must be a running poll's, got \(number) (finished already, or never started)")
        }
    }
}

@c @implementation
public func cadence_poller_set_active(_ handle: cadence_cancellable, _ active: Int32) -> Int32 {
    cResult { () throws(CadenceError) in
        let poller = try HandleRegistry.shared.poller(handle.id)
        guard !poller.isCancelled else {
            throw .alreadyCancelled.with("poller must not be cancelled, got a cancelled poller")
        }
        poller.setActive(active != 0)
    }
}

@c @implementation
public func cadence_poller_interval(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try HandleRegistry.shared.poller(handle.id).interval, to: out)
    }
}

@c @implementation
public func cadence_poller_tolerance(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try HandleRegistry.shared.poller(handle.id).tolerance, to: out)
    }
}

@c @implementation
public func cadence_poller_active(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try HandleRegistry.shared.poller(handle.id).isActive ? 1 : 0, to: out)
    }
}
