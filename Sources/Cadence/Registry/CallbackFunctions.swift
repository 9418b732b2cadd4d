/// The type of a loop's release function (cadence_loop_set_callbacks), which the loop keeps for
/// the C registrations armed on it (``Loop/setFunctions(fire:release:)``). To go with the loop's
/// functions, to the C layer. (Every kind of registration delivers through ``TimerHandler``.)
package enum TimerFunction {
    /// A loop's release function: called with the userdata of a C registration that ends
    /// without a final call (GLib's `GDestroyNotify`).
    package typealias Release = @convention(c) (UnsafeMutableRawPointer?) -> Void
}
