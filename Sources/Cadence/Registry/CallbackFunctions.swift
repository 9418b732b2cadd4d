/// A poller's C callback and what it is called with: `invoke(function, userdata, source, poll
/// number, date in seconds)`, the source being the poller's handle, through which the poll is
/// finished by its number (``Poller/finish(poll:)``).
package struct PollFunction: @unchecked Sendable {
    package typealias Invoke = @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?, UInt64, UInt64, Double) -> Void

    let invoke: Invoke
    let function: UnsafeRawPointer
    let userdata: UnsafeMutableRawPointer?

    package init(invoke: Invoke, function: UnsafeRawPointer, userdata: UnsafeMutableRawPointer?) {
        self.invoke = invoke
        self.function = function
        self.userdata = userdata
    }
}

/// The type of a loop's release function (cadence_loop_set_callbacks), which the loop keeps for
/// the C registrations armed on it (``Loop/setFunctions(fire:release:)``). To go with the loop's
/// functions, to the C layer. (Subscriptions and scheduled timers deliver through
/// ``TimerHandler``.)
package enum TimerFunction {
    /// A loop's release function: called with the userdata of a C registration that ends
    /// without a final call (GLib's `GDestroyNotify`).
    package typealias Release = @convention(c) (UnsafeMutableRawPointer?) -> Void
}
