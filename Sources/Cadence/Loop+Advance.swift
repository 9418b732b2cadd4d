import Dispatch

/// The test driver of a virtual loop for async code: move its clock by a span or to an instant,
/// running every timer and every job of its tasks and actors due up to there, and return once all
/// of it has settled.
///
/// ``run(mode:for:)-(_,Double)`` does the same on the calling thread, which it blocks. From an
/// async test that thread is one of the few of Swift's concurrency pool, which tests running in
/// parallel may all hold at once while the runtime needs one (the `Task.sleep` of the
/// `CadenceTasks` module hands its task back through that pool). So these calls run the loop on a
/// thread of their own and suspend the caller meanwhile, as swift-nio's
/// `NIOAsyncTestingEventLoop.advanceTime(by:)` does.
extension Loop {
    /// Runs a virtual loop for `duration` of its clock, off the calling thread, and returns once
    /// the run has ended: every timer and sleep due up to then has fired in fire-date order (ties
    /// in the order they were scheduled), each task it resumed on the loop's executor has run
    /// until it finished or waits on the clock again, and no job is waiting (see
    /// <doc:ClocksAndAsyncCode>). The clock then reads `duration` later than at the call. The
    /// jobs that came before the call (an input a test sent to a task on the loop) run first, at
    /// the clock's current reading. Usable from Swift Testing and XCTest alike; no `Task.yield`
    /// is needed, nor any wall-clock wait.
    ///
    /// - Parameters:
    ///   - mode: a registered mode other than ``RunLoopMode/common``.
    ///   - duration: how far to move the clock, ≥ 0, rounded up to whole nanoseconds; `.zero`
    ///     runs what is due now.
    /// - Throws: ``CadenceError/notSupported`` on a real loop (its clock moves by itself: run it
    ///   with ``run(mode:for:)-(_,Double)``); ``CadenceError/invalidArgument`` for a negative
    ///   duration or one that would take the clock to its end; ``CadenceError/busy`` from a job
    ///   or callback of the loop, or while another run is in progress; ``CadenceError/badHandle``
    ///   after ``close()``; otherwise as ``run(mode:for:)-(_,Double)``.
    public func advance(mode: RunLoopMode = .default, by duration: Duration) async throws(CadenceError) {
        let call = "Loop.advance(mode:by:)"
        let span: Nanoseconds
        do throws(CadenceError) {
            try requireVirtualToAdvance()
            span = try checkedAdvance(duration)
        } catch { throw error.in(call) }
        try await runElsewhere(mode: mode, call: call) { _ throws(CadenceError) in span }
    }

    /// Runs a virtual loop until its clock reads `deadline`, off the calling thread, and returns
    /// once the run has ended, as ``advance(mode:by:)`` does: `advance(to: start + .seconds(2))`
    /// reaches the same instant however far earlier calls went.
    ///
    /// - Parameters:
    ///   - mode: a registered mode other than ``RunLoopMode/common``.
    ///   - deadline: an instant of the loop's ``clock``, not before its reading when the run
    ///     begins; the reading itself runs what is due now.
    /// - Throws: ``CadenceError/invalidArgument`` for a deadline before the clock's reading (the
    ///   test went past it already) or at the clock's end; otherwise as ``advance(mode:by:)``.
    public func advance(mode: RunLoopMode = .default, to deadline: LoopClock.Instant) async throws(CadenceError) {
        let call = "Loop.advance(mode:to:)"
        do throws(CadenceError) { try requireVirtualToAdvance() } catch { throw error.in(call) }
        try await runElsewhere(mode: mode, call: call) { now throws(CadenceError) in
            guard deadline.nanoseconds >= now else {
                throw .invalidArgument.with("deadline must not be before the clock's reading (\(now) ns), "
                                            + "got \(deadline.nanoseconds) ns")
            }
            guard deadline.nanoseconds < .max else {
                throw .invalidArgument.with("deadline must be before a virtual clock's end (2^64 - 1 ns), "
                                            + "got \(deadline.nanoseconds) ns")
            }
            return deadline.nanoseconds - now
        }
    }

    /// Checks what can be checked before the run: a virtual loop, called from outside it.
    private func requireVirtualToAdvance() throws(CadenceError) {
        guard isVirtual else {
            throw .notSupported.with("loop must be a virtual loop to advance, got a real loop "
                                     + "(its clock moves by itself: run it for a duration)")
        }
        // The run would go on while the calling task waits for it, which a test of the loop's
        // tasks does not mean; refused as a run from a callback is.
        guard !isIsolatingCurrentContext() else {
            throw .busy.with("advance must be called from outside the loop, got a call from one of its jobs or callbacks")
        }
    }

    /// Runs the loop in `mode` on a thread outside Swift's concurrency pool for the span that
    /// `span` computes from the clock's reading there, and resumes the caller with the outcome.
    private func runElsewhere(mode: RunLoopMode, call: String,
                              span: @escaping @Sendable (Nanoseconds) throws(CadenceError) -> Nanoseconds)
        async throws(CadenceError) {
        // Handed over under the engine's pthread lock, which ThreadSanitizer sees: an error passed
        // through the continuation alone was reported as a race when read by the caller.
        let outcome = LockedState<Result<Void, CadenceError>>(.success(()))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // A serial queue of its own: its thread comes from Dispatch's overcommitting pool, so
            // it starts even while every other thread is blocked.
            DispatchQueue(label: "org.cadence.loop-advance").async {
                do throws(CadenceError) {
                    _ = try self.run(mode: mode, for: try span(self.timeSource.now()), onOwnThread: false)
                } catch {
                    outcome.withLock { $0 = .failure(error.in(call)) }
                }
                continuation.resume()
            }
        }
        try outcome.withLock { $0 }.get()
    }
}
