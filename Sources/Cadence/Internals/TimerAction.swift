/// What a timer runs when it fires: a Swift closure, or a C callback kept as plain words, so that
/// arming one for the C API allocates nothing (a closure capturing the C function and its
/// arguments would need a heap context).
package enum TimerAction {
    case closure((TimerTick) -> Void)
    case function(TimerFunction)

    @inline(__always)
    func run(_ tick: TimerTick) {
        switch self {
        case .closure(let body):
            body(tick)
        case .function(let call):
            call.invoke(call.function, call.userdata, call.source, tick.fireDateSeconds, UInt64(tick.skippedTicks))
        }
    }
}

/// A C callback and what it is called with: `invoke(function, userdata, source, fire date in
/// seconds, skipped ticks)`. `invoke` is the C layer's adapter, which knows `function`'s real type.
package struct TimerFunction {
    package typealias Invoke = @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?, UInt64, Double, UInt64) -> Void

    let invoke: Invoke
    let function: UnsafeRawPointer
    let userdata: UnsafeMutableRawPointer?
    let source: UInt64

    package init(invoke: Invoke, function: UnsafeRawPointer, userdata: UnsafeMutableRawPointer?, source: UInt64) {
        self.invoke = invoke
        self.function = function
        self.userdata = userdata
        self.source = source
    }
}
