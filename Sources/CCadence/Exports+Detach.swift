import Cadence
import CCadenceHeader

// Detaching: the work of a handle goes on once the handle is released (see cadence.h).

@c @implementation
public func cadence_cancellable_detach(_ handle: cadence_cancellable) -> Int32 {
    if isTimerHandle(handle.id) {
        // A scheduled timer: the loop's slot keeps the mark (HandleRegistry+Timers.swift).
        guard HandleRegistry.shared.detachTimer(handle.id) else {
            return fail(.deadHandle("cancellable", handle.id, kind: "cancellable"))
        }
        return 0
    }
    guard HandleRegistry.shared.detach(handle.id) else {
        return fail(.deadHandle("cancellable", handle.id, kind: "cancellable"))
    }
    return 0
}
