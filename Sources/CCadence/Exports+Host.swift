import Cadence
import CCadenceHeader

// A loop inside the host's own loop: its descriptor, its timeout and one pass (cadence.h), and a
// loop on a host's uv_loop_t (cadence/uv.h).

@c @implementation
public func cadence_loop_fd(_ handle: cadence_loop, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try lookUpLoop(handle).fileDescriptor(), to: out)
    }
}

@c @implementation
public func cadence_loop_timeout(_ handle: cadence_loop, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try lookUpLoop(handle).timeout() ?? .infinity, to: out)
    }
}

@c @implementation
public func cadence_loop_run_pass(_ handle: cadence_loop, _ mode: UnsafePointer<CChar>?) -> Int32 {
    cResult { () throws(CadenceError) in
        let loop = try lookUpLoop(handle)
        try loop.runPass(mode: try CCadence.mode(mode))
    }
}

@c @implementation
public func cadence_loop_run_pass_collect(_ handle: cadence_loop, _ mode: UnsafePointer<CChar>?, _ mask: UInt,
                                         _ records: UnsafeMutablePointer<cadence_fire_record>?, _ capacity: Int,
                                         _ count: UnsafeMutablePointer<Int>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard capacity >= 0 else { throw .hugeCount(capacity, "capacity") }
        guard records != nil || capacity == 0 else { throw .null("records") }
        guard let count else { throw .null("count") }
        let loop = try lookUpLoop(handle)
        let mode = try CCadence.mode(mode)
        // FireRecord is cadence_fire_record's layout (FireBatch.swift), as the batch function sees it.
        let collector = records.map {
            Collector(mask: mask, records: UnsafeMutableRawPointer($0).assumingMemoryBound(to: FireRecord.self),
                      capacity: capacity)
        }
        count.pointee = try loop.runPass(mode: mode, collecting: collector)
    }
}

@c @implementation
public func cadence_loop_create_on_uv(_ uvLoop: UnsafeMutablePointer<uv_loop_t>?, _ mode: UnsafePointer<CChar>?,
                                      _ out: UnsafeMutablePointer<cadence_loop>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let uvLoop else { throw .null("uv_loop") }
        guard let out else { throw .null("out") }
        let loop = try Loop(uvLoop: UnsafeMutableRawPointer(uvLoop), mode: try CCadence.mode(mode))
        out.pointee = cadence_loop(id: try HandleRegistry.shared.insert(loop))
    }
}

@c @implementation
public func cadence_loop_alive(_ handle: cadence_loop, _ mode: UnsafePointer<CChar>?,
                               _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        let loop = try lookUpLoop(handle)
        try write(try loop.isAlive(mode: try CCadence.mode(mode)) ? 1 : 0, to: out)
    }
}
