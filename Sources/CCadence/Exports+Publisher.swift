import Cadence
import CCadenceHeader

@c @implementation
public func cadence_publisher_create(_ loopHandle: cadence_loop, _ interval: Double, _ tolerance: Double,
                                     _ mode: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<cadence_publisher>?) -> Int32 {
    createPublisher(loopHandle, interval, tolerance, mode, out)
}

/// `cadence_publisher_create` and its former name, `cadence_timer_publish`.
func createPublisher(_ loopHandle: cadence_loop, _ interval: Double, _ tolerance: Double,
                     _ mode: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<cadence_publisher>?,
                     _ function: StaticString = #function) -> Int32 {
    cResult(function) { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        let loop = try lookUpLoop(loopHandle)
        let mode = try CCadence.mode(mode)
        let publisher = try TimerPublisher(every: interval, tolerance: tolerance, on: loop, in: mode)
        out.pointee = cadence_publisher(id: try HandleRegistry.shared.insert(publisher: publisher, owner: loopHandle.id, of: loop))
    }
}

@c @implementation
public func cadence_publisher_autoconnect(_ handle: cadence_publisher, _ out: UnsafeMutablePointer<cadence_publisher>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        let (publisher, owner) = try HandleRegistry.shared.connectable(handle.id)
        out.pointee = cadence_publisher(id: try HandleRegistry.shared.insert(publisher: publisher.autoconnect(), owner: owner,
                                                                           of: publisher.loop))
    }
}

@c @implementation
public func cadence_publisher_subscribe(_ handle: cadence_publisher, _ fn: cadence_tick_fn?,
                                        _ userdata: UnsafeMutableRawPointer?,
                                        _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        out.pointee = cadence_cancellable(id: try HandleRegistry.shared.subscribe(tickRegistration(fn, userdata), publisher: handle.id))
    }
}

@c @implementation
public func cadence_publisher_connect(_ handle: cadence_publisher, _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let out else { throw .null("out") }
        out.pointee = cadence_cancellable(id: try HandleRegistry.shared.connect(publisher: handle.id))
    }
}

@c @implementation
public func cadence_publisher_release(_ handle: cadence_publisher) -> Int32 {
    guard handle.id != 0 else { return 0 }
    return HandleRegistry.shared.remove(handle.id, kind: .publisher) != nil ? 0 : staleRelease
}

@c @implementation
public func cadence_publisher_set_missed_ticks(_ handle: cadence_publisher, _ policy: Int32) -> Int32 {
    cResult { () throws(CadenceError) in
        try HandleRegistry.shared.setMissedTicks(publisher: handle.id) { () throws(CadenceError) in
            guard let policy = MissedTickPolicy(rawValue: policy) else { throw .badPolicy("policy", policy) }
            return policy
        }
    }
}

@c @implementation
public func cadence_publisher_interval(_ handle: cadence_publisher, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try settings(of: handle).interval, to: out)
    }
}

@c @implementation
public func cadence_publisher_tolerance(_ handle: cadence_publisher, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try settings(of: handle).tolerance, to: out)
    }
}

@c @implementation
public func cadence_publisher_missed_ticks(_ handle: cadence_publisher, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try settings(of: handle).missedTicks.rawValue, to: out)
    }
}

@c @implementation
public func cadence_publisher_mode(_ handle: cadence_publisher, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int32 {
    var length: Int32 = 0
    let code = cResult { () throws(CadenceError) in
        guard buffer != nil || size == 0 else { throw .null("buffer") }
        let name = Array(try settings(of: handle).mode.name.utf8)
        length = Int32(clamping: name.count)
        guard let buffer, size > 0 else { return }
        let copied = min(name.count, size - 1)
        name.withUnsafeBufferPointer { bytes in
            for index in 0..<copied { buffer[index] = CChar(bitPattern: bytes[index]) }
        }
        buffer[copied] = 0
    }
    return code == 0 ? length : code
}

/// The settings of the publisher behind a live publisher handle, of either kind.
private func settings(of handle: cadence_publisher) throws(CadenceError)
    -> (interval: Double, tolerance: Double, mode: RunLoopMode, missedTicks: MissedTickPolicy) {
    switch HandleRegistry.shared.lookUp(handle.id, kind: .publisher)?.object {
    case let publisher as TimerPublisher:
        return (publisher.interval, publisher.tolerance, publisher.mode, publisher.missedTicks)
    case let publisher as AutoconnectTimerPublisher:
        return (publisher.interval, publisher.tolerance, publisher.mode, publisher.missedTicks)
    default:
        throw .deadHandle("publisher", handle.id, kind: "publisher")
    }
}
