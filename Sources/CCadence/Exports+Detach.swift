import Cadence
import CCadenceHeader

// Detaching: the work of a handle goes on once the handle is released (see cadence.h).

@c @implementation
public func cadence_cancellable_detach(_ handle: cadence_cancellable) -> Int32 {
    guard HandleRegistry.shared.detach(handle.id) else {
        return fail(.deadHandle("cancellable", handle.id, kind: "cancellable"))
    }
    return 0
}
