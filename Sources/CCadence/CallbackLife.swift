import Cadence

/// The end of one C registration's userdata, for a kind made of closures (a subscription, a
/// countdown, a poller): captured by the closure that calls the C callback, it calls the loop's
/// release function (cadence_loop_set_callbacks) once, unless the registration's last call came
/// (a countdown's finished event). A scheduled timer needs none: the engine's slot knows its end
/// (``TimerFunction``).
///
/// The ends the C layer sees (cancel, release, destroy) call ``finish()``; any other (a
/// subscription its publisher ended) comes when the closure is let go, at the latest with its
/// handle, in `deinit`. Either waits for a callback that is running, which then releases once it
/// has returned (a callback cancelling its own registration).
final class CallbackLife: @unchecked Sendable {
    private let release: TimerFunction.Release
    private let userdata: UnsafeMutableRawPointer?
    private let lock = Lock()
    // Guarded by `lock`: a callback is between `begin` and `end`; the registration has ended; the
    // release was called, or is not to be.
    private var running = false
    private var ended = false
    private var released = false

    /// The life of a registration made now on `loop`; nil when the loop has no release function.
    static func make(_ loop: Loop, _ userdata: UnsafeMutableRawPointer?) -> CallbackLife? {
        make(loop.releaseFunction, userdata)
    }

    /// The life of a registration whose loop's release function, read before, is `release`.
    static func make(_ release: TimerFunction.Release?, _ userdata: UnsafeMutableRawPointer?) -> CallbackLife? {
        release.map { CallbackLife($0, userdata) }
    }

    private init(_ release: TimerFunction.Release, _ userdata: UnsafeMutableRawPointer?) {
        self.release = release
        self.userdata = userdata
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
        if releaseNow { release(userdata) }
    }

    /// The registration has ended without a final call: releases now, or once the callback
    /// running now returns. Later calls do nothing.
    func finish() {
        lock.lock()
        guard !ended else { return lock.unlock() }
        ended = true
        let releaseNow = !running
        if releaseNow { released = true }
        lock.unlock()
        if releaseNow { release(userdata) }
    }

    /// The registering call failed: nothing is called, now or later.
    func abandon() {
        lock.lock()
        (ended, released) = (true, true)
        lock.unlock()
    }

    deinit {
        if !released { release(userdata) }
    }
}
