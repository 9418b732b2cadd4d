import Cadence
import CCadenceHeader

// Detaching: the work of a handle goes on once the handle is released (see cadence.h).

@c @implementation
public func cadence_cancellable_detach(_ handle: cadence_cancellable) -> Int32 {
    // A scheduled timer: releasing its handle leaves it running already.
    if HandleTable.shared.timer(handle.id) != nil { return 0 }
    guard let cancellable = HandleTable.shared.cancellable(handle.id) else {
        return fail(.deadHandle("cancellable", handle.id, kind: "cancellable"))
    }
    cancellable.detach()
    return 0
}
