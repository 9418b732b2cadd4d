/// What a timer runs when it fires: a Swift closure, or a C callback kept as plain words, so that
/// arming one for the C API allocates nothing (a closure capturing the C function and its
/// arguments would need a heap context).
///
/// A struct with a closure that is always there and plain words, rather than an enum or an
/// optional closure: releasing it is one release of the closure's context, where those are
/// destroyed through the runtime's generic value witnesses (measured: about 150 instructions per
/// fire).
package struct TimerAction {
    private let body: @Sendable (TimerTick) -> Void
    private(set) var call: TimerFunction

    /// A Swift closure.
    static func closure(_ body: @escaping @Sendable (TimerTick) -> Void) -> TimerAction {
        TimerAction(body: body, call: TimerFunction(invoke: nil, function: nil, userdata: nil))
    }

    /// A C callback.
    static func function(_ call: TimerFunction) -> TimerAction {
        TimerAction(body: { _ in }, call: call)
    }

    /// Does nothing: what a free slot holds.
    static var idle: TimerAction { .closure { _ in } }

    /// Whether it is a C callback with a release function (see ``TimerFunction/release``).
    var hasRelease: Bool { call.release != nil }

    /// Gives a C callback the release function of the loop it is armed on.
    mutating func setRelease(_ release: TimerFunction.Release?) {
        if call.invoke != nil { call.release = release }
    }

    /// `id`: the timer's, whose handle bits with `source` (the loop's ``Loop/setHandleSource(_:)``)
    /// are a C callback's source; `final`: the timer's last call (a one-shot's fire), after which a
    /// C callback's userdata is never used again.
    @inline(__always)
    func run(_ tick: TimerTick, id: TimerID, source: UInt64, final: Bool) {
        if let invoke = call.invoke, let function = call.function {
            invoke(function, call.userdata, source | id.handleBits, tick.fireDateSeconds, UInt64(tick.skipped),
                   final ? 1 : 0)
        } else {
            body(tick)
        }
    }

    /// The userdata of a C callback with a release function, as the integer that
    /// `cadence_cancel_steal` hands back instead of the release: nil without a release, or for a
    /// userdata that is NULL or negative as an `intptr_t` (the result's sign tells errors apart).
    package var stealableUserdata: Int? {
        let value = Int(bitPattern: call.userdata)
        return hasRelease && value > 0 ? value : nil
    }

    /// Calls a C callback's release function with its userdata: the timer ended without a final
    /// call. Call it once, with no lock held, after every call of the callback has returned.
    func runRelease() {
        call.release?(call.userdata)
    }
}

/// A C callback and what it is called with: `invoke(function, userdata, source, fire date in
/// seconds, skipped ticks, final)`, where the source is the timer's C handle: the loop's bits for
/// it (``Loop/setHandleSource(_:)``) with the timer's ``TimerID/handleBits``. `invoke` is the C layer's adapter, which knows `function`'s real
/// type. `release`, when set, is called with `userdata` once if the timer ends without a final
/// call (cancelled, or its loop closed): GLib's `GDestroyNotify`. A subscription takes one too
/// (``TimerBroadcast/functionSubscription(_:source:)``), with its handle as the source.
// Unchecked: plain words; the C caller answers for what `userdata` points to.
package struct TimerFunction: @unchecked Sendable {
    package typealias Invoke = @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?, UInt64, Double, UInt64, Int32) -> Void
    package typealias Release = @convention(c) (UnsafeMutableRawPointer?) -> Void

    let invoke: Invoke?
    let function: UnsafeRawPointer?
    let userdata: UnsafeMutableRawPointer?
    /// Filled in when the timer is armed, from the loop's ``Loop/setFunctions(fire:release:)``.
    var release: Release?

    package init(invoke: Invoke?, function: UnsafeRawPointer?, userdata: UnsafeMutableRawPointer?) {
        self.invoke = invoke
        self.function = function
        self.userdata = userdata
        release = nil
    }
}
