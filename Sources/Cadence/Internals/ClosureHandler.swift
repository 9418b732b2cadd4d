/// A Swift closure as a ``PlainTimerHandler``: its two words (function and context, a thick
/// function's layout), the context retained once while a timer holds it, so that a timer's action
/// is plain words whatever it runs (``TimerAction``).
///
/// The one place the engine takes a closure apart: `ClosureHandlerTests` fail if a closure's
/// layout or its context's life ever differs from what this assumes (two words; a context that is
/// nil or a native object, freed once its last reference goes). The closure crosses as a field
/// of a struct (``Held``): a function value cast by itself is passed to the generic cast through a
/// reabstraction thunk, whose words are not the closure's.
enum ClosureHandler: PlainTimerHandler {
    typealias Body = @Sendable (TimerTick) -> Void

    /// Always the first (HandlerKinds.swift).
    static let kind: UInt8 = 0

    /// A closure as a struct's field: stored at its own abstraction, as two words.
    private struct Held {
        let body: Body
    }

    /// The words of `body`, its context retained (released by the final fire or the end).
    static func retaining(_ body: @escaping Body) -> HandlerWords {
        let (function, context) = unsafeBitCast(Held(body: body), to: (UInt, UInt).self)
        if let context = UnsafeRawPointer(bitPattern: context) {
            _ = Unmanaged<AnyObject>.fromOpaque(context).retain()
        }
        return (function, context, 0)
    }

    /// Calls the closure; a final call then releases what it captured.
    @inline(__always)
    static func fired(_ words: HandlerWords, _ tick: TimerTick, final: Bool) {
        guard words.0 != 0 else { return }  // the idle action
        unsafeBitCast((words.0, words.1), to: Held.self).body(tick)
        if final { ended(words) }
    }

    static func fired(_ words: HandlerWords, _ tick: TimerTick, timer: UInt64, final: Bool) {
        fired(words, tick, final: final)
    }

    /// Whether it captured something: a closure without a context has nothing to end.
    static func observesEnd(_ words: HandlerWords) -> Bool { words.1 != 0 }

    /// Releases what the closure captured.
    @inline(__always)
    static func ended(_ words: HandlerWords) {
        guard let context = UnsafeRawPointer(bitPattern: words.1) else { return }
        Unmanaged<AnyObject>.fromOpaque(context).release()
    }

    static func handBackKey(_ words: HandlerWords) -> Int? { nil }
    static func batchWord(_ words: HandlerWords, kind: UInt) -> UInt? { nil }
    static func armed(_ words: HandlerWords, loop: LoopFunctionWords) -> PlainHandler { (words, Self.self) }

    // No value is ever made: a closure's handler lives as its words.
    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {}
}
