import Glibc
import Synchronization

/// A real clock's deadline read on a virtual loop.
///
/// The Swift runtime hands a `Task.sleep` on `ContinuousClock` or `SuspendingClock` to the loop as
/// a deadline of that clock, computed when the sleeping task read the real clock; on a virtual
/// loop only the time left at that read counts, since virtual time stands still while a job runs.
/// The loop sees neither the read nor the duration, only the start of the job that slept and the
/// hand-over: the time left lies between `low`, the deadline's distance from the hand-over, and
/// `low` plus the real time the job has taken. Unpreempted, a job takes microseconds and the
/// whole millisecond in that span is the sleep. A thread preempted during the job was preempted
/// once, before the read or after it: the time left is then within the job's running time (CPU
/// time, which stops while the thread waits) of one end of the span or of the other, and a whole
/// millisecond found there is the sleep (the later one if both ends show one: late, never early).
/// Otherwise the sleep is not a whole number of milliseconds, and it is rounded up from the far
/// end of the span, which is never short of it.
/// What no rule can tell apart: a sleep just past a whole millisecond (by less than the time from
/// the read to the hand-over, or by about a preemption after the read) hands over what the whole
/// millisecond would, and is read as it, so it ends that much early; the result is never below
/// `low`, the time left at the hand-over.
extension Loop {
    /// Notes, on a virtual loop, that a job starts on the calling thread. Called by the thread
    /// running the loop, before each job.
    func noteJobStart() {
        let cpu = Self.threadCPUNanoseconds()
        let start = JobStart(thread: pthread_self(), real: ContinuousClock.now, cpu: cpu)
        jobStart.withLock { $0 = start }
    }

    /// Notes that the job ended: a sleep handed over outside a job of the loop (a task that runs
    /// elsewhere for a moment) must not read its time left from a job that ended long before,
    /// which would make it late.
    func noteJobEnd() {
        jobStart.withLock { $0 = nil }
    }

    /// The virtual nanoseconds a sleep until `deadline` of `ContinuousClock` lasts (see above):
    /// the time left and the job's span read from one reading of the clock, so that a preemption
    /// between two readings cannot widen the span. Never negative; saturates at `Int64.max`.
    package func virtualTimeLeft(until deadline: ContinuousClock.Instant) -> Int64 {
        let now = ContinuousClock.now
        return virtualTimeLeft(left: now.duration(to: deadline), at: now)
    }

    /// The virtual nanoseconds a sleep of another real clock lasts, given `left`, the time to its
    /// deadline read just before the call (see above). Never negative; saturates at `Int64.max`.
    ///
    /// - Parameter left: the deadline minus the real clock's reading.
    package func virtualTimeLeft(realTimeLeft left: Duration) -> Int64 {
        virtualTimeLeft(left: left, at: ContinuousClock.now)
    }

    /// The rule for a time `left` read at `now` (or just before).
    private func virtualTimeLeft(left: Duration, at now: ContinuousClock.Instant) -> Int64 {
        let cpu = Self.threadCPUNanoseconds()
        let start = jobStart.withLock { $0 }
        let low = Self.wholeNanoseconds(left)
        guard let start, pthread_equal(start.thread, pthread_self()) != 0 else {
            return Self.sleepLength(low: low, span: 0, running: 0)  // not in a job of this loop
        }
        return Self.sleepLength(low: low, span: Self.wholeNanoseconds(start.real.duration(to: now)),
                                running: cpu &- start.cpu)
    }

    /// The rule above: the virtual nanoseconds of a sleep whose time left lies in
    /// `low...low + span`, read by a job that ran `running` nanoseconds of CPU time meanwhile.
    package static func sleepLength(low: Int64, span: Int64, running: Int64) -> Int64 {
        let millisecond: Int64 = 1_000_000
        let reach = min(max(0, running), millisecond) + readingSkew  // a millisecond reaches any
        let span = max(0, span)
        guard low < Int64.max - span - millisecond else { return .max }  // beyond any clock
        let high = low + span
        guard high > 0 else { return 0 }
        let lastWhole = high / millisecond * millisecond  // at or before `high`: preempted after the read
        if high - lastWhole <= reach, lastWhole >= low { return lastWhole }
        let firstWhole = low <= 0 ? 0 : (low - 1) / millisecond * millisecond + millisecond  // at or after `low`
        if firstWhole - low <= reach, firstWhole <= high { return firstWhole }
        return lastWhole + millisecond
    }

    /// Slack for the clocks' readings, which are a few instructions apart: 10 µs.
    static let readingSkew: Int64 = 10_000

    private static func wholeNanoseconds(_ duration: Duration) -> Int64 {
        let nanoseconds = duration.attoseconds / 1_000_000_000
        return nanoseconds > Int128(Int64.max) ? .max : nanoseconds < Int128(Int64.min) ? .min : Int64(nanoseconds)
    }

    private static func threadCPUNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

/// When the job running on a virtual loop's thread started, by the real clock and by the thread's
/// CPU clock.
struct JobStart: Sendable {
    let thread: pthread_t
    let real: ContinuousClock.Instant
    let cpu: Int64
}
