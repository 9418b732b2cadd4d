// One seam between the engine and its faces: "fired, or ended once".
//
// A registration (a scheduled timer, a subscription, a countdown, a poller) delivers through one
// engine protocol, `TimerHandler`, modelled on swift-nio's `NIOScheduledCallbackHandler`: the
// engine calls `fired(_:timer:final:)` once per fire, and, when the registration ends without a
// final fire (cancelled, given up, its loop closed), `ended()` exactly once, with no lock held and
// after every `fired` has returned. The engine knows nothing else about what it calls.
//
// Who conforms (as the steps land): Swift closures (`schedule`, publishers, sleeps, jobs); in
// Sources/CCadence, C's `{function, userdata, release}`, one small struct per C
// callback type (`cadence_tick_fn`, `cadence_fire_fn`), whose `ended()` calls the loop's release
// function with the userdata (GLib's `GDestroyNotify`).
//
// Storage without allocation: a timer slot keeps its handler as `any TimerHandler`. An
// existential's inline buffer holds three words, so a handler of at most three words (a closure
// is two; a C callback is its function, userdata and release) is stored in place: arming
// allocates nothing, and moving a handler in and out of a slot is a copy of five words. Calls go
// through the witness table (one indirect call); a handler's destruction through its value
// witness, which for the C structs (plain words) does nothing.
//
// Measured with `scripts/check-engine-c-words.py --counts` (run by `make test`) and
// `Benchmarks/profile.py`: before this seam, 58 code lines in 12 files of Sources/Cadence named
// a C word of the ABI (raw pointers, `@convention(c)`, userdata, `Int32`), and 111 lines declared
// `package` API. The scheduled timers' C callback moves first (TimerAction's `TimerFunction`);
// subscriptions, countdowns and pollers (`UserdataLife`) follow, one kind at a time, then the
// per-loop C functions, the fire batch and the registry itself.

/// What a timer calls: ``fired(_:timer:final:)`` on each fire, and ``ended()`` once if it ends
/// without a final fire. Exactly one of a final ``fired(_:timer:final:)`` or ``ended()`` comes,
/// once (swift-nio's `NIOScheduledCallbackHandler` makes the same promise).
///
/// Keep a conforming type to three words or fewer (a closure is two), so that the engine stores
/// it without allocating (see the note at the top of this file). Package API: the engine's
/// closures and the C layer conform.
package protocol TimerHandler: Sendable {
    /// The timer fired: `tick` is its fire date and skipped grid points; `timer` names the timer
    /// as its loop's host does (the loop's ``Loop/setHandleSource(_:)`` bits with the timer's);
    /// `final` on its last fire (a one-shot's), after which ``ended()`` never comes. Called on the
    /// thread that runs the loop, with no lock held.
    func fired(_ tick: TimerTick, timer: UInt64, final: Bool)

    /// Whether ``ended()`` does anything: false lets the engine skip the bookkeeping that makes it
    /// come once, after every callback (a Swift closure's end is its release).
    var observesEnd: Bool { get }

    /// The timer ended without a final fire: cancelled, or its loop closed. Called once, with no
    /// lock held, after every ``fired(_:timer:final:)`` has returned.
    func ended()

    /// What a cancel may hand back instead of calling ``ended()`` (a binding's integer key for
    /// the handler: `cadence_cancel_steal`); nil when there is nothing to hand back. To go with
    /// the one cancel protocol of every kind.
    var handBackKey: Int? { get }

    /// For a loop's batch of fires (FireBatch.swift): the word this handler's batch record
    /// carries when it belongs to the batch of kind `kind` (the batch's fire function, as bits),
    /// else nil. To go when the batch moves to the C layer.
    func batchWord(kind: UInt) -> UInt?
}

extension TimerHandler {
    /// No end to observe.
    package var observesEnd: Bool { false }
    /// Nothing to do.
    package func ended() {}
    /// Nothing to hand back.
    package var handBackKey: Int? { nil }
    /// Never batched.
    package func batchWord(kind: UInt) -> UInt? { nil }
}
