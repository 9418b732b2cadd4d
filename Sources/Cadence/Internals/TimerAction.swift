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
    /// The handler's type, as its ``HandlerKinds`` byte.
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

    // MARK: In a slot

    /// The third word, which timers share (a C callback's: its loop's release function), kept
    /// out of the slot (``StoredAction``).
    var sharedWord: UInt { words.2 }

    /// The action as a slot keeps it, its third word as `tag` (``TimerQueues/tag(for:)``).
    func stored(tag: Int) -> StoredAction {
        StoredAction(first: words.0, second: words.1, tagAndKind: UInt8(tag) << StoredAction.tagShift | kind)
    }

    /// The action a slot keeps, its third word `shared` (the word its tag stands for).
    init(_ stored: StoredAction, shared: UInt) {
        self.init(words: (stored.first, stored.second, shared), kind: stored.tagAndKind & StoredAction.kindMask)
    }
}

/// A ``TimerAction`` as a timer's slot keeps it: its first two words, and one byte for its type
/// and its third word, which many timers share (a C callback's release function is its loop's:
/// one or two per loop) and the slot's table keeps once, by tag (``TimerQueues/sharedWords``).
/// 17 bytes, so that the small fields after it fill its last word and a slot is 40 bytes
/// (TimerSlot.swift): 8 bytes a timer less than with the third word in every slot.
struct StoredAction {
    fileprivate let first: UInt
    fileprivate let second: UInt
    /// The type's ``HandlerKinds`` byte (low 3 bits: ``HandlerKinds`` holds at most 8 types) and
    /// the third word's tag (high 5 bits).
    fileprivate let tagAndKind: UInt8

    fileprivate static let tagShift: UInt8 = 3
    fileprivate static let kindMask: UInt8 = 1 << tagShift - 1
    /// How many tags a table has, tag 0 (the word 0) included.
    static let tagLimit = 1 << (8 - Int(tagShift))
    /// How many handler types a kind byte can name.
    static let kindLimit = Int(kindMask) + 1

    /// Does nothing and owns nothing: what a free slot holds (``TimerAction/idle``).
    static var idle: StoredAction { TimerAction.idle.stored(tag: 0) }

    /// The tag of the third word.
    var tag: Int { Int(tagAndKind >> Self.tagShift) }
}
