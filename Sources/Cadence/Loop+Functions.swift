/// The C API's callbacks per loop (cadence_loop_set_callbacks): a fire function for one-shots
/// armed without one (`cadence_loop_schedule_default`, a binding's hot path), and a release
/// function called with the userdata of every C registration that ends without a final call
/// (GLib's `GDestroyNotify`, libuv's `uv_close` callback). Package API, for the C layer only.
extension Loop {
    /// Sets the fire and release functions for the C callbacks armed from now on; nil clears
    /// either. Timers armed before keep what they were armed with.
    ///
    /// - Throws: ``CadenceError/badHandle`` after ``close()``.
    package func setFunctions(fire: UnsafeRawPointer?, release: TimerFunction.Release?) throws(CadenceError) {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosedFlag else { throw .loopClosed() }
        defaultFire = fire
        functionRelease = release
    }

    /// The release function set now, for the C registrations made of closures (subscriptions,
    /// countdowns, pollers), which call it themselves.
    package var releaseFunction: TimerFunction.Release? {
        lock.lock()
        defer { lock.unlock() }
        return functionRelease
    }

    /// A one-shot in the default mode with no tolerance, calling the loop's fire function through
    /// `invoke` with `userdata` and `source`: `cadence_loop_schedule_default`. Returns the timer's
    /// ``TimerID/packed`` id.
    ///
    /// - Throws: ``CadenceError/invalidArgument`` for a bad `delay`, or if no fire function is set;
    ///   ``CadenceError/badHandle`` after ``close()``.
    @inline(__always)
    package func scheduleDefault(after delay: Double, userdata: UnsafeMutableRawPointer?, source: UInt64,
                                 invoke: TimerFunction.Invoke) throws(CadenceError) -> UInt64 {
        let delay = try nanoseconds(fromSeconds: delay, allowZero: true, argument: "delay")
        lock.lock()
        defer { lock.unlock() }
        guard let fire = defaultFire else {
            guard !isClosedFlag else { throw .loopClosed() }
            throw .noFireFunction()
        }
        return try armLocked(delay: delay, at: nil, interval: 0, tolerance: 0, missedTicks: .skip,
                             modeIndex: TimerQueues.defaultIndex,
                             action: .function(TimerFunction(invoke: invoke, function: fire, userdata: userdata,
                                                             source: source))).packed
    }

    /// Cancels the C API's timer with packed id `packedID` without waiting for its callback;
    /// returns whether it was still armed and whether its callback is running on another thread,
    /// which the caller then waits for with ``waitForCallback(packedID:)`` once it holds no lock,
    /// and then calls `release.runRelease()` (the userdata's release, when this call ended the
    /// timer and its own callback is not the caller; otherwise an idle action).
    package func cancel(packedID: UInt64, releasing release: inout TimerAction) -> (cancelled: Bool, callbackRunning: Bool) {
        let (disarmed, running) = disarmReportingCallback(TimerID(packed: packedID), releasing: &release)
        return (disarmed, running)
    }
}

extension TimerAction {
    /// An action with nothing to release.
    package static var none: TimerAction { .idle }

    /// Runs the release a cancel handed over (see ``Loop/cancel(packedID:releasing:)``); nothing
    /// for an action without one.
    package func finishCancel() {
        if hasRelease { runRelease() }
    }
}

extension CadenceError {
    /// `cadence_loop_schedule_default` on a loop without a fire function.
    @inline(never)
    static func noFireFunction() -> CadenceError {
        invalidArgument.with("loop must have a fire function, got none (cadence_loop_set_callbacks first)")
    }
}
