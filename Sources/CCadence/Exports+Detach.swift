import Cadence
import CCadenceHeader

// Detaching: the work of a handle goes on once the handle is released (see cadence.h).

@c @implementation
public func cadence_cancellable_detach(_ handle: cadence_cancellable) -> Int32 {
    if HandleTable.isTimer(handle.id) {
        // A scheduled timer: the engine's slot keeps the mark (HandleTable+Timers.swift).
        guard HandleTable.shared.detachTimer(handle.id) else {
            return fail(.deadHandle("cancellable", handle.id, kind: "cancellable"))
        }
        return 0
    }
    guard let cancellable = HandleTable.shared.cancellable(handle.id) else {
        return fail(.deadHandle("cancellable", handle.id, kind: "cancellable"))
    }
    cancellable.detach()
    return 0
}
