// One seam between the engine and its faces: "fired, or ended once".
//
// A registration (a scheduled timer, a subscription, a countdown, a poller) delivers through one
// engine protocol, `TimerHandler`, modelled on swift-nio's `NIOScheduledCallbackHandler`: the
// engine calls `fired(_:timer:final:)` once per fire, and, when the registration ends without a
// final fire (cancelled, given up, its loop closed), `ended()` exactly once, with no lock held and
// after every `fired` has returned. The engine knows nothing else about what it calls.
//
// Who conforms: in Sources/CCadence, C's `{function, userdata, release}`, one small struct per
// C callback type (`cadence_tick_fn` and `cadence_fire_fn` for scheduled timers and
// subscriptions; `cadence_countdown_fn` and `cadence_poll_fn` through `PlainCountdownHandler` and
// `PlainPollHandler`, whose events are not ticks), whose `ended()` calls the loop's release
// function with the userdata (GLib's `GDestroyNotify`). A scheduled timer's slot knows its end;
// the kinds made of closures keep it in a `HandlerLife`. A Swift closure a timer runs
// (`schedule`, publishers, sleeps, jobs) is one more plain handler, `ClosureHandler`: its end is
// the release of what it captured, on its final fire or its end like any other.
//
// Storage without allocation or value witnesses: a timer slot keeps a handler that is plain
// words (`PlainTimerHandler`, three words: `HandlerWords`) as those words and its type's byte
// (`HandlerKinds`), in `TimerAction` (in a slot, `StoredAction`: the third word, shared by many
// timers, by a tag): a slot is plain data, 40 bytes. Calls go through the type's
// witness table (one indirect call into the conforming module's own concrete code; a closure's
// in place); copying and moving a slot's action is copying words. A registration passes its words
// and type; under the loop's lock the type completes them with the loop's host functions
// (`armed(_:loop:)`, one witness call, no closure). Measured (Benchmarks/profile.py, instructions
// per operation against the engine before the seam): a closure beside the words made 96-byte
// slots (128 bytes per Swift timer in `CadenceBench mem`; 80 now, with the small fields as bits
// and intervals and tolerances in a table apart); an existential (`any TimerHandler`) in the
// slot cost 110 to 140 more per start and fire, its assign and destroy going through the
// runtime's value witnesses; a closure making the handler under the lock, 80 more per C start;
// generic defaults for the requirements below ran unspecialised in the C layer (230 per cancel),
// since package API is not inlined across the module boundary.
//
// One handle life and one cancel protocol for every kind. A handle is stored in the registry's
// slots (subscriptions, connections, countdowns, pollers) or in its loop's timer slots
// (scheduled timers); `HandleRegistry.cancel(_:handingBack:)`, `release`, `detach` and
// `isCancelled` (HandleRegistry+Handles.swift) decide which from the handle's form, so the C layer
// tests no bits. A cancel ends the handler one way for every kind: when it stops the
// registration and no callback of it is running, it hands the handler's key back
// (`handBackKey`, `cadence_cancel_steal`) instead of calling `ended()`, if asked to and the
// handler has one; otherwise `ended()` comes as before (`cadence_cancel`, the stable ABI's
// contract, asks for none). Why the key and not the release: a binding's release is a call from
// C back into its language (a ctypes callback: about 150 ns of Python's cancel, measured in
// Benchmarks/python/asyncio_parts.py and profile.py's Python rows), and the binding that cancels
// knows the key's end as well as its release function does; handing back costs the engine
// nothing (it reads the key the release would have been called with), and the release function
// stays for the ends nobody asks for (given up, a loop closed, a publisher ended).
//
// Measured with `scripts/check-engine-c-words.py --counts` and `Benchmarks/profile.py`: before
// this seam, 57 code lines in 14 files of Sources/Cadence named a C word of the ABI (raw
// pointers, `@convention(c)`, userdata, `Int32`), and 111 lines declared `package` API.
// With every kind through the protocol: 14 lines in 7 files, 115 `package` lines. With one
// handle life and cancel protocol: 14 lines in 7 files, 99 `package` lines, of which the C
// layer needed 56. With the host's functions and the fire batch as words and the C layer's own
// messages: no line of the ABI (the check in `make test` fails on a new one), 93 `package`
// declarations, of which the C layer needs 46 (each of the others made internal, Sources/CCadence
// still builds); the rest serve CadenceTasks, the tools and the tests. A cancel's handler costs
// the engine the same as before (profile.py: `cadence_cancel` 598 to 567 instructions, start and
// fire unchanged).

/// What a timer calls: ``fired(_:timer:final:)`` on each fire, and ``ended()`` once if it ends
/// without a final fire. Exactly one of a final ``fired(_:timer:final:)`` or ``ended()`` comes,
/// once (swift-nio's `NIOScheduledCallbackHandler` makes the same promise).
///
/// A handler the engine stores conforms to ``PlainTimerHandler`` as well (see the note at the top
/// of this file). Package API: the C layer conforms.
package protocol TimerHandler: Sendable {
    /// The timer fired: `tick` is its fire date and skipped grid points; `timer` names the timer
    /// as its loop's host does (the loop's ``Loop/setHandleSource(_:)`` bits with the timer's);
    /// `final` on its last fire (a one-shot's), after which ``TimerHandler/ended()`` never comes.
    /// Called on the thread that runs the loop, with no lock held.
    func fired(_ tick: TimerTick, timer: UInt64, final: Bool)

    /// Whether ``TimerHandler/ended()`` does anything: false lets the engine skip the bookkeeping that makes it
    /// come once, after every callback (a Swift closure's end is its release).
    var observesEnd: Bool { get }

    /// The timer ended without a final fire: cancelled, or its loop closed. Called once, with no
    /// lock held, after every ``TimerHandler/fired(_:timer:final:)`` has returned.
    func ended()

    /// What a cancel may hand back instead of calling ``TimerHandler/ended()`` (a binding's
    /// integer key for the handler: `cadence_cancel_steal`), for every kind of registration
    /// (``HandleRegistry/cancel(_:handingBack:)``); nil when there is nothing to hand back.
    var handBackKey: Int? { get }

    /// For a loop's batch of fires (FireBatch.swift): the word this handler's batch record
    /// carries when it belongs to the batch of kind `kind` (the host's fire function word), else nil.
    func batchWord(kind: UInt) -> UInt?
}

extension TimerHandler {  // the engine's own handlers' defaults; the C layer states its own
    /// No end to observe.
    var observesEnd: Bool { false }
    /// Nothing to do.
    func ended() {}
    /// Nothing to hand back.
    var handBackKey: Int? { nil }
    /// Never batched.
    func batchWord(kind: UInt) -> UInt? { nil }
}

/// A ``TimerHandler`` that is plain words (at most three: a C callback's function, userdata and
/// release), which a timer's slot keeps as ``HandlerWords`` beside the handler's type, so that
/// arming, moving and ending it allocate nothing and call no value witness. The requirements
/// read the handler back from its words; a conforming type implements them where it is declared,
/// as concrete code (generic defaults here ran unspecialised in the C layer, and package API is
/// not inlined across the module boundary: each call from there into the engine is a call).
package protocol PlainTimerHandler: TimerHandler {
    /// ``TimerHandler/fired(_:timer:final:)`` of the handler in `words`.
    static func fired(_ words: HandlerWords, _ tick: TimerTick, timer: UInt64, final: Bool)
    /// ``TimerHandler/observesEnd`` of the handler in `words`.
    static func observesEnd(_ words: HandlerWords) -> Bool
    /// ``TimerHandler/ended()`` of the handler in `words`.
    static func ended(_ words: HandlerWords)
    /// ``TimerHandler/handBackKey`` of the handler in `words`.
    static func handBackKey(_ words: HandlerWords) -> Int?
    /// ``TimerHandler/batchWord(kind:)`` of the handler in `words`.
    static func batchWord(_ words: HandlerWords, kind: UInt) -> UInt?
    /// The handler a registration arms, from the `words` it passed, on a loop whose host
    /// functions (the C layer's per-loop fire and release functions, as bits; 0 when not set)
    /// are `loop`: under the loop's lock, so that a registration racing with a change of them
    /// sees the old pair or the new one. It may be of another type (a C registration without a
    /// callback of its own arms the loop's fire function).
    ///
    /// - Throws: what the registration cannot arm (no fire function to stand in).
    static func armed(_ words: HandlerWords, loop: LoopFunctionWords) throws(CadenceError) -> PlainHandler

    /// The byte a timer's slot names this type by: `static let kind = HandlerKinds.register(Self.self)`
    /// in the conforming type (HandlerKinds.swift).
    static var kind: UInt8 { get }
}

/// A ``PlainTimerHandler`` for a countdown's events (`cadence_countdown_start`): its
/// ``countdown(_:remaining:finished:date:source:)`` is the countdown's ``TimerHandler/fired(_:timer:final:)``,
/// the finished event its final call. Its ``PlainTimerHandler/armed(_:loop:)`` keeps its own type.
package protocol PlainCountdownHandler: PlainTimerHandler {
    /// A countdown's event: `remaining` whole seconds left (0 with `finished`, its last call), at
    /// `date` (the loop's clock, seconds since 1970), naming `source` (the countdown's handle).
    /// Called on the loop's thread, with no lock held.
    static func countdown(_ words: HandlerWords, remaining: Int, finished: Bool, date: Double, source: UInt64)
}

/// A ``PlainTimerHandler`` for a poller's polls (`cadence_poller_start`): its
/// ``poll(_:number:date:source:)`` is the poller's ``TimerHandler/fired(_:timer:final:)`` (a poller
/// has no final call). Its ``PlainTimerHandler/armed(_:loop:)`` keeps its own type.
package protocol PlainPollHandler: PlainTimerHandler {
    /// A poll starts: `number` names it to ``Poller/finish(poll:)``, at `date` (the loop's clock,
    /// seconds since 1970), naming `source` (the poller's handle). Called on the loop's thread,
    /// with no lock held.
    static func poll(_ words: HandlerWords, number: Int, date: Double, source: UInt64)
}

/// A ``PlainTimerHandler``'s fields as three words, for its type to read back. A tuple: its
/// elements are read and written in place from any module (a struct's accessors would be calls
/// from the C layer).
package typealias HandlerWords = (UInt, UInt, UInt)

/// A plain handler: its words and the type that reads them.
package typealias PlainHandler = (words: HandlerWords, type: any PlainTimerHandler.Type)

/// A loop's host functions as bits (``PlainTimerHandler/armed(_:loop:)``): 0 when not set.
package typealias LoopFunctionWords = (fire: UInt, release: UInt)
