/// The end of a C registration's handler, for the kinds made of closures (a subscription, a
/// countdown, a poller): each calls its handler between ``begin()`` and ``end(final:)``, and ends
/// the registration with ``finish(handingBack:)`` when it is cancelled, given up or its loop
/// destroyed. The handler's ``TimerHandler/ended()`` (a C callback's: the loop's release function
/// with the userdata, cadence_loop_set_callbacks) then comes exactly once, after every callback has
/// returned, unless the registration's last call came (a countdown's finished event). A scheduled
/// timer needs none: the engine's slot knows its end (``TimerAction``).
///
/// A callback that ends its own registration (it cancels its source) gets the end once it
/// has returned; an end nobody called (a subscription whose publisher ended, never cancelled)
/// comes when the closure holding this is let go, in `deinit`.
final class HandlerLife: @unchecked Sendable {
    private let handler: PlainHandler
    private let lock = Lock()
    // Guarded by `lock`: a callback is between `begin` and `end`; the registration has ended; the
    // release was called, or is not to be.
    private var running = false
    private var ended = false
    private var released = false

    /// The life of a registration of `handler` (as armed: ``PlainTimerHandler/armed(_:loop:)``);
    /// nil for a handler that does not observe its end (nothing to call).
    static func make(_ handler: PlainHandler) -> HandlerLife? {
        handler.type.observesEnd(handler.words) ? HandlerLife(handler) : nil
    }

    private init(_ handler: PlainHandler) {
        self.handler = handler
    }

    /// The handler's end.
    private func release() {
        handler.type.ended(handler.words)
    }

    /// Before a callback: false once the registration has ended (the callback is then skipped).
    func begin() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !ended else { return false }
        running = true
        return true
    }

    /// After a callback; `final` if it was the registration's last call (no release then).
    func end(final: Bool) {
        lock.lock()
        running = false
        if final { (ended, released) = (true, true) }
        let releaseNow = ended && !released
        if releaseNow { released = true }
        lock.unlock()
        if releaseNow { release() }
    }

    /// The registration has ended without a final call: releases now, or once the callback
    /// running now returns. Later calls do nothing. `handingBack` (a cancel that hands the
    /// handler's key back, ``TimerHandler/handBackKey``): a release due now is not called, and
    /// the key is returned instead, the caller's from then on; 0 when nothing was handed back.
    @discardableResult
    func finish(handingBack: Bool = false) -> Int {
        lock.lock()
        guard !ended else {
            lock.unlock()
            return 0
        }
        ended = true
        let releaseNow = !running
        if releaseNow { released = true }
        lock.unlock()
        guard releaseNow else { return 0 }
        if handingBack, let key = handler.type.handBackKey(handler.words) { return key }
        release()
        return 0
    }

    /// The registering call failed: nothing is called, now or later.
    func abandon() {
        lock.lock()
        (ended, released) = (true, true)
        lock.unlock()
    }

    deinit {
        if !released { release() }
    }
}

extension Optional<HandlerLife> {
    /// Runs a C callback inside ``HandlerLife/begin()`` and ``HandlerLife/end(final:)``, or
    /// just runs it when there is no life (no release function): `call` returns whether it was the
    /// registration's last call.
    @inline(__always)
    func run(_ call: () -> Bool) {
        guard let life = self else { return _ = call() }
        guard life.begin() else { return }
        life.end(final: call())
    }
}

