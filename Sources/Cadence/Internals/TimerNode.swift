/// One armed timer inside a loop's queues: its next fire date, its grid and its action.
///
/// Every field is read and written under the owning loop's lock.
final class TimerNode {
    enum State { case active, cancelled, finished }

    /// The next fire date on the timer's grid (monotonic ns).
    var fireDate: Nanoseconds
    /// Scheduling order, for ties between equal fire dates.
    var sequence: UInt64 = 0
    /// Position in its mode's heap by fire date; -1 when not queued.
    var heapIndex = -1
    /// Position in its mode's heap by the end of the tolerance window; -1 when not queued.
    var latestIndex = -1
    /// `fireDate + tolerance`: the latest the timer may fire while the loop is idle. Set when the
    /// timer is queued, so that heap comparisons do not add.
    var latestFireDate: Nanoseconds = 0
    /// The repeat interval; 0 for a one-shot timer.
    let interval: Nanoseconds
    let tolerance: Nanoseconds
    let missedTicks: MissedTickPolicy
    let modeIndex: Int
    var state = State.active
    /// Dropped when the timer is cancelled, so that what it captured (often its owner, which
    /// holds the node) is released even if the owner forgets the timer.
    var action: ((TimerTick) -> Void)?

    init(fireDate: Nanoseconds, interval: Nanoseconds, tolerance: Nanoseconds,
         missedTicks: MissedTickPolicy = .skip, modeIndex: Int, action: @escaping (TimerTick) -> Void) {
        self.missedTicks = missedTicks
        self.fireDate = fireDate
        self.interval = interval
        self.tolerance = tolerance
        self.modeIndex = modeIndex
        self.action = action
    }

    /// Orders by fire date, then by scheduling order.
    @inline(__always)
    func precedes(_ other: TimerNode) -> Bool {
        fireDate != other.fireDate ? fireDate < other.fireDate : sequence < other.sequence
    }

    /// Fires the timer at `now` (≥ ``fireDate``): returns the fire date to report and the number
    /// of grid points skipped, and moves a repeating timer to its next fire date.
    ///
    /// With ``MissedTickPolicy/skip`` the reported fire date is the latest grid point not after
    /// `now`, so a late timer fires once and its grid never drifts (Apple's `Timer`).
    func advance(now: Nanoseconds) -> (fireDate: Nanoseconds, skipped: UInt64) {
        guard interval > 0 else {
            state = .finished
            return (fireDate, 0)
        }
        let due = fireDate
        switch missedTicks {
        case .skip:
            let skipped = (now - due) / interval
            let reported = due.saturatingAdd(skipped.saturatingMultiply(interval))
            fireDate = reported.saturatingAdd(interval)
            return (reported, skipped)
        case .burst:
            fireDate = due.saturatingAdd(interval)
            return (due, 0)
        case .delay:
            fireDate = (now - due < interval ? due : now).saturatingAdd(interval)
            return (due, 0)
        }
    }
}
