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
    private let call: TimerFunction

    /// A Swift closure.
    static func closure(_ body: @escaping @Sendable (TimerTick) -> Void) -> TimerAction {
        TimerAction(body: body, call: TimerFunction(invoke: nil, function: nil, userdata: nil, source: 0))
    }

    /// A C callback.
    static func function(_ call: TimerFunction) -> TimerAction {
        TimerAction(body: { _ in }, call: call)
    }

    /// Does nothing: what a free slot holds.
    static var idle: TimerAction { .closure { _ in } }

    @inline(__always)
    func run(_ tick: TimerTick) {
        if let invoke = call.invoke, let function = call.function {
            invoke(function, call.userdata, call.source, tick.fireDateSeconds, UInt64(tick.skipped))
        } else {
            body(tick)
        }
    }
}

/// A C callback and what it is called with: `invoke(function, userdata, source, fire date in
/// seconds, skipped ticks)`. `invoke` is the C layer's adapter, which knows `function`'s real type.
package struct TimerFunction {
    package typealias Invoke = @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?, UInt64, Double, UInt64) -> Void

    let invoke: Invoke?
    let function: UnsafeRawPointer?
    let userdata: UnsafeMutableRawPointer?
    let source: UInt64

    package init(invoke: Invoke?, function: UnsafeRawPointer?, userdata: UnsafeMutableRawPointer?, source: UInt64) {
        self.invoke = invoke
        self.function = function
        self.userdata = userdata
        self.source = source
    }
}
