/// What a timer runs when it fires: its ``TimerHandler``, kept in the timer's slot as an
/// existential. A handler of three words or fewer (a Swift closure, a C callback) sits in the
/// existential's inline buffer, so arming one allocates nothing.
///
/// One existential rather than an enum of a closure and plain words: an enum's payloads are
/// copied and destroyed through the runtime's generic value witnesses (measured: about 150
/// instructions per fire), an existential's through its type's own witness.
package struct TimerAction {
    /// The handler the timer calls.
    package let handler: any TimerHandler

    /// Wraps `handler`.
    package init(_ handler: any TimerHandler) {
        self.handler = handler
    }

    /// A Swift closure.
    static func closure(_ body: @escaping @Sendable (TimerTick) -> Void) -> TimerAction {
        TimerAction(ClosureHandler(body: body))
    }

    /// Does nothing: what a free slot holds.
    package static var idle: TimerAction { TimerAction(IdleHandler()) }

    /// Whether the handler observes its end (see ``TimerHandler/observesEnd``).
    var hasRelease: Bool { handler.observesEnd }

    /// `id`: the timer's, whose handle bits with `source` (the loop's ``Loop/setHandleSource(_:)``)
    /// name it to the handler; `final`: the timer's last call (a one-shot's fire).
    @inline(__always)
    func run(_ tick: TimerTick, id: TimerID, source: UInt64, final: Bool) {
        handler.fired(tick, timer: source | id.handleBits, final: final)
    }

    /// Tells the handler that the timer ended without a final call. Call it once, with no lock
    /// held, after every call of the handler has returned.
    func runRelease() {
        handler.ended()
    }
}

/// A Swift closure as a handler: its end is the release of what it captured.
struct ClosureHandler: TimerHandler {
    let body: @Sendable (TimerTick) -> Void

    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) { body(tick) }
}

/// The handler of a free slot: nothing.
struct IdleHandler: TimerHandler {
    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {}
}
