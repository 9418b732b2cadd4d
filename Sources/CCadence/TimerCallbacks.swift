import Cadence
import CCadenceHeader

// C's `{function, userdata, release}` as the engine's `PlainTimerHandler`, one struct per callback
// type: three words each, which the engine keeps in a timer's slot without allocating. `release`
// is the loop's release function when the timer was armed (cadence_loop_set_callbacks), called
// with the userdata once if the timer ends without a final call. A registration passes its
// function and userdata (`registration`); the engine completes them with the loop's functions
// under its lock (`armed`).

/// A `cadence_tick_fn`: called with a `cadence_tick` whose source is the timer's handle.
struct TickCallback: CCallback, @unchecked Sendable {  // plain words; the caller answers for userdata
    let function: cadence_tick_fn
    let userdata: UnsafeMutableRawPointer?
    let release: cadence_release_fn?
    static let kind = HandlerKinds.register(Self.self)

    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {
        var tick = cadence_tick(fire_date: tick.fireDateSeconds, skipped: UInt64(tick.skipped),
                                source: cadence_cancellable(id: timer), final: final ? 1 : 0)
        function(&tick, userdata)
    }

    /// A registration's `fn` NULL (word 0) stands for the loop's fire function.
    static func armed(_ words: HandlerWords, loop: LoopFunctionWords) throws(CadenceError) -> PlainHandler {
        if words.0 != 0 { return ((words.0, words.1, loop.release), TickCallback.self) }
        guard loop.fire != 0 else { throw .nullCallback() }
        return ((loop.fire, words.1, loop.release), FireCallback.self)
    }
}

/// A loop's `cadence_fire_fn` (a binding's one function for every timer): called with the userdata,
/// the fire date, the skipped ticks and whether it was the last call. Batched by
/// cadence_loop_set_fire_batch. Either's userdata is handed back by cadence_cancel_steal.
struct FireCallback: CCallback, @unchecked Sendable {  // plain words, as TickCallback
    let function: cadence_fire_fn
    let userdata: UnsafeMutableRawPointer?
    let release: cadence_release_fn?
    static let kind = HandlerKinds.register(Self.self)

    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {
        function(userdata, tick.fireDateSeconds, UInt64(tick.skipped), final ? 1 : 0)
    }

    func batchWord(kind: UInt) -> UInt? {
        UInt(bitPattern: unsafeBitCast(function, to: UnsafeRawPointer.self)) == kind ? UInt(bitPattern: userdata) : nil
    }

    /// Read from the words alone: a pass asks it of every one-shot it fires.
    static func batchWord(_ words: HandlerWords, kind: UInt) -> UInt? { words.0 == kind ? words.1 : nil }

    /// Registered with the userdata alone: the loop's fire function (cadence_loop_schedule_default).
    static func armed(_ words: HandlerWords, loop: LoopFunctionWords) throws(CadenceError) -> PlainHandler {
        guard loop.fire != 0 else { throw .noFireFunction() }
        return ((loop.fire, words.1, loop.release), FireCallback.self)
    }
}

/// A `cadence_countdown_fn`: called with a `cadence_countdown_event` whose source is the
/// countdown's handle.
struct CountdownCallback: CCallback, PlainCountdownHandler, @unchecked Sendable {  // plain words, as TickCallback
    let function: cadence_countdown_fn
    let userdata: UnsafeMutableRawPointer?
    let release: cadence_release_fn?
    static let kind = HandlerKinds.register(Self.self)

    /// A countdown's events come through `countdown`, never a tick.
    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {}

    static func countdown(_ words: HandlerWords, remaining: Int, finished: Bool, date: Double, source: UInt64) {
        let callback = from(words)
        var event = cadence_countdown_event(remaining: Int64(remaining), finished: finished ? 1 : 0, date: date,
                                            source: cadence_cancellable(id: source))
        callback.function(&event, callback.userdata)
    }

    /// The function and userdata it was registered with, and the loop's release function.
    static func armed(_ words: HandlerWords, loop: LoopFunctionWords) -> PlainHandler {
        ((words.0, words.1, loop.release), CountdownCallback.self)
    }
}

/// A `cadence_poll_fn`: called with a `cadence_poll` whose source is the poller's handle.
struct PollCallback: CCallback, PlainPollHandler, @unchecked Sendable {  // plain words, as TickCallback
    let function: cadence_poll_fn
    let userdata: UnsafeMutableRawPointer?
    let release: cadence_release_fn?
    static let kind = HandlerKinds.register(Self.self)

    /// A poller's polls come through `poll`, never a tick.
    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {}

    static func poll(_ words: HandlerWords, number: Int, date: Double, source: UInt64) {
        let callback = from(words)
        var poll = cadence_poll(number: UInt64(number), date: date, source: cadence_cancellable(id: source))
        callback.function(&poll, callback.userdata)
    }

    /// The function and userdata it was registered with, and the loop's release function.
    static func armed(_ words: HandlerWords, loop: LoopFunctionWords) -> PlainHandler {
        ((words.0, words.1, loop.release), PollCallback.self)
    }
}

/// A C callback kept by the engine as three words (`PlainTimerHandler`): its function, userdata
/// and release, whose every requirement reads it back here, specialised for each type.
protocol CCallback: PlainTimerHandler {
    associatedtype Function
    var function: Function { get }
    var userdata: UnsafeMutableRawPointer? { get }
    var release: cadence_release_fn? { get }
    init(function: Function, userdata: UnsafeMutableRawPointer?, release: cadence_release_fn?)
}

extension CCallback {
    @inline(__always)
    static func from(_ words: HandlerWords) -> Self {
        Self(function: unsafeBitCast(UnsafeRawPointer(bitPattern: words.0).unsafelyUnwrapped, to: Function.self),
             userdata: UnsafeMutableRawPointer(bitPattern: words.1),
             release: UnsafeRawPointer(bitPattern: words.2).map { unsafeBitCast($0, to: cadence_release_fn.self) })
    }

    static func fired(_ words: HandlerWords, _ tick: TimerTick, timer: UInt64, final: Bool) {
        from(words).fired(tick, timer: timer, final: final)
    }

    static func observesEnd(_ words: HandlerWords) -> Bool { words.2 != 0 }
    static func ended(_ words: HandlerWords) { from(words).ended() }
    static func handBackKey(_ words: HandlerWords) -> Int? { stealableKey(UnsafeMutableRawPointer(bitPattern: words.1)) }
    static func batchWord(_ words: HandlerWords, kind: UInt) -> UInt? { from(words).batchWord(kind: kind) }

    var observesEnd: Bool { release != nil }
    func ended() { release?(userdata) }

    /// The userdata as cadence_cancel_steal's integer: none for NULL or a negative `intptr_t`
    /// (the result's sign tells errors apart).
    var handBackKey: Int? { stealableKey(userdata) }

    /// Not batched: only the loop's fire function's one-shots are (`FireCallback`).
    func batchWord(kind: UInt) -> UInt? { nil }
}

/// A userdata as cadence_cancel_steal's integer: none for NULL or a negative `intptr_t` (the
/// result's sign tells errors apart).
@inline(__always)
private func stealableKey(_ userdata: UnsafeMutableRawPointer?) -> Int? {
    let value = Int(bitPattern: userdata)
    return value > 0 ? value : nil
}

/// What a C registering call given `fn` (NULL: the loop's fire function, if set) and `userdata`
/// passes the engine (completed by `TickCallback.armed`).
@inline(__always)
func tickRegistration(_ fn: cadence_tick_fn?, _ userdata: UnsafeMutableRawPointer?) -> PlainHandler {
    ((functionBits(fn), UInt(bitPattern: userdata), 0),
     TickCallback.self)
}

/// What a call arming the loop's fire function with `userdata` passes the engine
/// (cadence_loop_schedule_default and the transient one-shots; completed by `FireCallback.armed`).
@inline(__always)
func fireRegistration(_ userdata: UnsafeMutableRawPointer?) -> PlainHandler {
    ((0, UInt(bitPattern: userdata), 0), FireCallback.self)
}
