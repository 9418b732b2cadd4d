import Cadence
import CCadenceHeader

@c @implementation
public func cadence_set_trim_memory(_ enabled: Int32) -> Int32 {
    Loop.trimsMemory = enabled != 0
    return 0
}

@c @implementation
public func cadence_trim_memory(_ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in try write(Loop.trimsMemory ? 1 : 0, to: out) }
}

@c @implementation
public func cadence_memory_trims(_ out: UnsafeMutablePointer<UInt64>?) -> Int32 {
    cResult { () throws(CadenceError) in try write(Loop.memoryTrims, to: out) }
}
