/// What a timer runs when it fires: a Swift closure, or a ``PlainTimerHandler`` kept as its words
/// and its type, so that arming one allocates nothing (a closure capturing the handler would
/// need a heap context).
///
/// A struct with a closure that is always there, plain words and an optional type, rather than an
/// enum, an optional closure or an existential (`any TimerHandler`): releasing it is one release
/// of the closure's context and copying it a copy of words, where those are copied and destroyed
/// through the runtime's value witnesses (measured: about 150 instructions per fire for an enum,
/// 110 to 140 per start or fire for the existential).
package struct TimerAction {
    private let body: @Sendable (TimerTick) -> Void
    private let words: HandlerWords
    /// The type of the handler in ``words``; nil for a closure.
    private let plain: (any PlainTimerHandler.Type)?

    private init(body: @escaping @Sendable (TimerTick) -> Void, words: HandlerWords,
                 plain: (any PlainTimerHandler.Type)?) {
        self.body = body
        self.words = words
        self.plain = plain
    }

    /// A Swift closure: its end is the release of what it captured.
    static func closure(_ body: @escaping @Sendable (TimerTick) -> Void) -> TimerAction {
        TimerAction(body: body, words: (0, 0, 0), plain: nil)
    }

    /// A plain handler (a C callback), kept in place.
    init(_ handler: PlainHandler) {
        self.init(body: { _ in }, words: handler.words, plain: handler.type)
    }

    /// Does nothing: what a free slot holds.
    static var idle: TimerAction { .closure { _ in } }

    /// Whether the handler observes its end (``TimerHandler/observesEnd``): a closure does not.
    var hasRelease: Bool { plain?.observesEnd(words) ?? false }

    /// `id`: the timer's, whose handle bits with `source` (the loop's ``Loop/setHandleSource(_:)``)
    /// name it to a handler; `final`: the timer's last call (a one-shot's fire), after which the
    /// handler's ``TimerHandler/ended()`` never comes.
    @inline(__always)
    func run(_ tick: TimerTick, id: TimerID, source: UInt64, final: Bool) {
        if let plain {
            plain.fired(words, tick, timer: source | id.handleBits, final: final)
        } else {
            body(tick)
        }
    }

    /// The handler's ``TimerHandler/batchWord(kind:)``; nil for a closure.
    @inline(__always)
    func batchWord(kind: UInt) -> UInt? { plain?.batchWord(words, kind: kind) }

    /// What a cancel may hand back instead of the release (``TimerHandler/handBackKey``): only
    /// for a handler that observes its end.
    var handBackKey: Int? {
        guard let plain, plain.observesEnd(words) else { return nil }
        return plain.handBackKey(words)
    }

    /// Tells the handler that the timer ended without a final call. Call it once, with no lock
    /// held, after every call of the handler has returned.
    func runRelease() {
        plain?.ended(words)
    }
}
