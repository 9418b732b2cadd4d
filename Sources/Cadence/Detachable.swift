/// A handle that can be detached: afterwards, giving it up (its last reference going away, or a
/// C handle released) leaves its work running (<doc:Lifetimes>). ``AnyCancellable/detach()``
/// passes the call on to a wrapped cancellable of this kind.
package protocol Detachable: Cancellable {
    /// Keeps the work going once the handle is given up; calling it again does nothing.
    func detach()
}

extension ScheduledTimer: Detachable {}
