/// A loop's clock, as a Swift `Clock` with `Duration` (SE-0329): inject it wherever a
/// `some Clock<Duration>` goes, and its sleeps are one-shot timers on the loop, so they honour
/// tolerance and coalesce with each other and with the loop's timers.
///
/// Get one from ``Loop/clock``. On a real loop it reads the monotonic clock that the loop's
/// timers run on (CLOCK_MONOTONIC, as `uv_hrtime`); on a virtual loop (``Loop/virtual()``) it
/// reads virtual time, which moves only when the loop is run or its clock advanced.
///
/// A sleep ends on the loop's thread, when the loop fires its timer: a real loop must be running
/// (``Loop/run(mode:for:)-(_,Double)``, ``Loop/startThread(mode:)``, or a host driving it with
/// ``Loop/runPass(mode:)`` or from its `uv_loop_t`) for a sleep to end, and a sleep on a loop that
/// nothing runs waits, as a timer on a thread without a run loop does, until the loop runs or the
/// sleeping task is cancelled. The timers are in ``RunLoopMode/common``, so they fire in every
/// common mode. See <doc:ClocksAndAsyncCode> for tasks that run on the loop itself, which makes async code on a
/// virtual loop deterministic.
///
/// A clock holds its loop: a copy keeps the loop alive. Copies are interchangeable.
public struct LoopClock: Clock, Sendable {
    package let loop: Loop

    init(loop: Loop) { self.loop = loop }

    /// A reading of the loop's clock: the loop's monotonic nanoseconds.
    ///
    /// `Duration` arithmetic rounds so that a sleep is never early: ``advanced(by:)`` rounds a
    /// fraction of a nanosecond up (towards later), and saturates at both ends of the clock
    /// instead of wrapping. ``duration(to:)`` is exact.
    ///
    /// Instants of real loops are on one scale (the process's monotonic clock); each virtual loop
    /// has its own, starting at 0. Comparing instants of different virtual loops means nothing.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// Nanoseconds of the loop's monotonic clock: since boot for a real loop (CLOCK_MONOTONIC),
        /// since its creation for a virtual loop.
        public let nanoseconds: UInt64

        /// The instant at `nanoseconds` of a loop's monotonic clock.
        ///
        /// - Parameter nanoseconds: any value; `UInt64.max` stands for "never" (a timer there never fires).
        public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

        /// This instant moved by `duration`, rounded up to the next whole nanosecond (so a deadline
        /// computed from it is never before the one asked for), clamped to 0 and `UInt64.max`.
        ///
        /// - Parameter duration: any duration, negative included.
        /// - Returns: the moved instant.
        public func advanced(by duration: Duration) -> Instant {
            let attoseconds = duration.attoseconds
            // Truncating division rounds a negative value up already; a positive one needs help.
            var delta = attoseconds / 1_000_000_000
            if attoseconds % 1_000_000_000 > 0 { delta += 1 }
            let moved = Int128(nanoseconds) + delta
            return Instant(nanoseconds: moved <= 0 ? 0 : moved >= Int128(UInt64.max) ? .max : UInt64(moved))
        }

        /// The exact duration from this instant to `other` (negative if `other` is earlier).
        ///
        /// - Parameter other: an instant of the same clock.
        /// - Returns: `other` minus `self`, in whole nanoseconds.
        public func duration(to other: Instant) -> Duration {
            Duration(attoseconds: (Int128(other.nanoseconds) - Int128(nanoseconds)) * 1_000_000_000)
        }

        /// Whether `lhs` is earlier than `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

        /// `instant` moved later by `duration` (see ``advanced(by:)``), as `ContinuousClock.Instant` offers.
        public static func + (instant: Instant, duration: Duration) -> Instant { instant.advanced(by: duration) }

        /// `instant` moved earlier by `duration` (see ``advanced(by:)``).
        public static func - (instant: Instant, duration: Duration) -> Instant { instant.advanced(by: .zero - duration) }

        /// The exact duration from `rhs` to `lhs` (see ``duration(to:)``).
        public static func - (lhs: Instant, rhs: Instant) -> Duration { rhs.duration(to: lhs) }

        /// Moves `instant` later by `duration`.
        public static func += (instant: inout Instant, duration: Duration) { instant = instant + duration }

        /// Moves `instant` earlier by `duration`.
        public static func -= (instant: inout Instant, duration: Duration) { instant = instant - duration }

        /// The nanoseconds, for logs: `"1500000000 ns"`.
        public var description: String { "\(nanoseconds) ns" }
    }

    /// A fresh read of the loop's clock (never a cached loop time).
    public var now: Instant { Instant(nanoseconds: loop.timeSource.now()) }

    /// One nanosecond, for real and virtual loops: instants are whole nanoseconds, a real loop
    /// sleeps on a timerfd armed with the absolute deadline in nanoseconds (not libuv's whole
    /// milliseconds), and CLOCK_MONOTONIC reports a 1 ns resolution (`clock_getres`) on kernels
    /// with high-resolution timers. It is the clock's granularity, not its wake-up latency: an
    /// idle loop wakes some 0.1 ms after a deadline, a busy machine later, and never before.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends the calling task until the loop's clock reads `deadline`, or up to `tolerance`
    /// later: a one-shot timer on the loop, in ``RunLoopMode/common``, with that tolerance, so
    /// that sleeps whose windows overlap each other's or a timer's end in one wake-up (the
    /// loop's coalescing rule; see <doc:Semantics>).
    ///
    /// Never early: the sleep ends when the loop fires its timer, at or after `deadline` on a
    /// fresh clock read. A deadline that has passed ends on the loop's next pass. The task
    /// resumes on its own executor: the loop's thread if it runs on the loop's executor (see
    /// <doc:ClocksAndAsyncCode>), else its executor after a hop from the loop's thread. The loop must be
    /// running for the sleep to end (see ``LoopClock``).
    ///
    /// Cancellation: cancelling the task ends the sleep at once with `CancellationError` and
    /// disarms its timer before `Task.cancel()` returns (``Loop/armedTimerCount`` drops then),
    /// whatever thread cancels; nothing is held until the deadline. Cancel and fire race under a
    /// lock of the sleep's own: whichever comes first decides, and the sleep ends exactly once. A
    /// task cancelled before it sleeps throws at once and arms nothing.
    ///
    /// - Parameters:
    ///   - deadline: an instant of this clock.
    ///   - tolerance: allowed lateness, ≥ 0, rounded down to whole nanoseconds; nil means 0 (the
    ///     loop fires at the deadline as soon as it can).
    /// - Throws: `CancellationError` if the task is cancelled (before or during the sleep);
    ///   ``CadenceError/invalidArgument`` for a negative tolerance; ``CadenceError/badHandle`` if
    ///   the loop is closed, before or during the sleep.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let lateness: Nanoseconds
        do throws(CadenceError) {
            lateness = try Self.nanoseconds(ofTolerance: tolerance ?? .zero)
        } catch { throw error.in("LoopClock.sleep(until:tolerance:)") }
        try Task.checkCancellation()
        let sleep = Sleep(loop: loop)
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                sleep.start(continuation, at: deadline.nanoseconds, tolerance: lateness)
            }
        } onCancel: {
            sleep.cancel()
        }
    }

    /// Whole nanoseconds of a tolerance, rounded down (the window never grows past what was
    /// asked), saturating beyond about 584 years.
    ///
    /// - Parameter tolerance: the duration to convert.
    /// - Throws: ``CadenceError/invalidArgument`` for a negative tolerance.
    static func nanoseconds(ofTolerance tolerance: Duration) throws(CadenceError) -> Nanoseconds {
        let attoseconds = tolerance.attoseconds
        guard attoseconds >= 0 else {
            throw .badDuration("tolerance", tolerance, allowZero: true)
        }
        let whole = attoseconds / 1_000_000_000
        return whole >= Int128(UInt64.max) ? .max : UInt64(whole)
    }
}

extension Loop {
    /// The loop's clock: a `Clock<Duration>` whose ``LoopClock/now`` reads the loop's clock and
    /// whose sleeps are timers on the loop (see ``LoopClock``). Cheap to get; every copy is the same clock.
    public var clock: LoopClock { LoopClock(loop: self) }
}
