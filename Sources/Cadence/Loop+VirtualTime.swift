/// Loops on a virtual clock, for exact and instant tests of timer code.
extension Loop {
    /// Creates a loop whose clock moves only when told: the same engine as a real loop, on a
    /// virtual clock that starts at 0 (fire dates are virtual seconds since 1970).
    ///
    /// ``run(mode:for:)-(_,Double)`` advances virtual time by the given seconds, stepping the clock to each
    /// wake-up the engine chooses and firing what is due there, in order, so every tick happens
    /// (as combine-schedulers' `TestScheduler.advance(by:)`). With zero tolerance each timer fires
    /// exactly at its fire date. ``jumpClock(by:)-(Double)`` moves the clock without running anything.
    /// Jobs of tasks and actors that come while nothing runs the loop run at once, at the clock's
    /// reading, so that awaiting them from outside completes (``settle()`` waits for them).
    public static func virtual() -> Loop {
        Loop(timeSource: VirtualClock())
    }

    /// Whether this loop runs on a virtual clock.
    public var isVirtual: Bool { hasVirtualClock }

    /// Moves a virtual loop's clock forward by `seconds` without running the loop, as if its
    /// thread were blocked; afterwards an overdue repeating timer fires once, on its grid.
    ///
    /// A jump, not an advance: ``advance(mode:by:)`` and ``VirtualScheduler/advance(by:)-(Double)``
    /// (as combine-schedulers' `advance(by:)`) fire every tick on the way; a jump fires nothing
    /// until the loop next runs (Jest's `setSystemTime`, time-machine's `shift`).
    /// (`cadence_loop_jump_clock` in C, `Loop.jump_clock` in Python.)
    ///
    /// - Throws: ``CadenceError/notSupported`` on a real loop; ``CadenceError/invalidArgument`` for
    ///   NaN, infinite or negative `seconds`, or for a jump that would take the clock to its
    ///   end (2⁶⁴ − 1 ns, about 584 years after its start; the clock is then left alone);
    ///   ``CadenceError/badHandle`` after ``close()``.
    public func jumpClock(by seconds: Double) throws(CadenceError) {
        do {
            try advanceClock(by: try nanoseconds(fromSeconds: seconds, allowZero: true, argument: "seconds"),
                             seconds: seconds)
        } catch { throw error.in("Loop.jumpClock(by:)") }
    }

    /// The former name of ``jumpClock(by:)-(Double)``.
    @available(*, deprecated, renamed: "jumpClock(by:)")
    public func advanceClock(by seconds: Double) throws(CadenceError) { try jumpClock(by: seconds) }

    /// ``jumpClock(by:)-(Double)`` by checked nanoseconds; `seconds` is the caller's value, for messages.
    func advanceClock(by duration: Nanoseconds, seconds: Double) throws(CadenceError) {
        guard let virtualClock = timeSource as? VirtualClock else {
            throw .notSupported.with("loop must be a virtual loop, got a real loop (its clock is libuv's)")
        }
        runIdleJobs()  // the jobs that came before the advance ran then, before the clock moved
        try lock.withLock { () throws(CadenceError) in
            waitForIdleJobsLocked()
            guard !isClosedFlag else { throw .loopClosed() }
            guard virtualClock.canAdvance(by: duration) else { throw .beyondClockEnd(seconds) }
            try virtualClock.advance(by: duration)
        }
    }
}
