/// What a timer runs when it fires: a ``PlainTimerHandler`` kept as its words and its type, so
/// that a timer's slot is plain data: arming, moving and ending a timer copy words, and no
/// refcount or value witness runs under the loop's lock.
///
/// A Swift closure is one such handler (``ClosureHandler``): its function and context as two
/// words, the context retained while the timer holds it and released by its final fire or its
/// end, as a C callback's userdata is. So every action has exactly one owner, the slot, and
/// whoever takes it out (a cancel, a one-shot's fire, a close) ends it once: a copy (a repeating
/// timer's, for its call outside the lock) owns nothing, and the loop's rule that an end comes
/// after every call has returned keeps the context alive for that call.
///
/// Measured (Benchmarks/profile.py and CadenceBench mem): a closure field beside the words made a
/// slot 96 bytes and cost every start and fire a closure's copy and destroy; an enum or an
/// existential (`any TimerHandler`) cost 110 to 150 instructions per start or fire in value
/// witnesses.
package struct TimerAction {
    private let words: HandlerWords
    /// The handler's type, as its ``HandlerKinds`` byte: 25 bytes in all, so that a slot's small
    /// fields fill the rest of its last word (TimerSlot.swift).
    private let kind: UInt8

    private init(words: HandlerWords, kind: UInt8) {
        self.words = words
        self.kind = kind
    }

    init(_ handler: PlainHandler) {
        self.init(words: handler.words, kind: handler.type.kind)
    }

    /// A Swift closure: retained until the timer's final fire or its end.
    static func closure(_ body: @escaping @Sendable (TimerTick) -> Void) -> TimerAction {
        TimerAction(words: ClosureHandler.retaining(body), kind: ClosureHandler.kind)
    }

    /// Does nothing and owns nothing: what a free slot holds.
    static var idle: TimerAction { TimerAction(words: (0, 0, 0), kind: ClosureHandler.kind) }

    private var isClosure: Bool { kind == ClosureHandler.kind }
    private var type: any PlainTimerHandler.Type { HandlerKinds.type(of: kind) }

    /// Whether ending it does anything (``TimerHandler/observesEnd``): a closure that captured
    /// something, a C callback with a release function.
    var hasRelease: Bool { isClosure ? ClosureHandler.observesEnd(words) : type.observesEnd(words) }

    /// `id`: the timer's, whose handle bits with `source` (the loop's ``Loop/setHandleSource(_:)``)
    /// name it to a handler; `final`: the timer's last call (a one-shot's fire), after which the
    /// handler's ``TimerHandler/ended()`` never comes.
    @inline(__always)
    func run(_ tick: TimerTick, id: TimerID, source: UInt64, final: Bool) {
        if isClosure {  // Swift's timers: called in place, not through the witness
            ClosureHandler.fired(words, tick, final: final)
        } else {
            type.fired(words, tick, timer: source | id.handleBits, final: final)
        }
    }

    /// The handler's ``TimerHandler/batchWord(kind:)``; nil for a closure.
    @inline(__always)
    func batchWord(kind batch: UInt) -> UInt? { isClosure ? nil : type.batchWord(words, kind: batch) }

    /// What a cancel may hand back instead of the release (``TimerHandler/handBackKey``): only
    /// for a handler that observes its end.
    var handBackKey: Int? {
        guard !isClosure, type.observesEnd(words) else { return nil }
        return type.handBackKey(words)
    }

    /// Lets go of an action that was never armed (its registering call failed): a closure's
    /// capture is released; a C callback is not told, since its caller keeps what it registered.
    func discard() {
        if isClosure { ClosureHandler.ended(words) }
    }

    /// Tells the handler that the timer ended without a final call. Call it once, with no lock
    /// held, after every call of the handler has returned.
    func runRelease() {
        if isClosure { ClosureHandler.ended(words) } else { type.ended(words) }
    }
}
