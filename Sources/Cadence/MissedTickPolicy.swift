/// What a repeating timer does when the loop gets to it after one or more of its fire dates have
/// passed (a blocked thread, a slow callback, a mode that was not running). After tokio's
/// `MissedTickBehavior`; ``skip`` is Apple's `Timer` behaviour and the default.
public enum MissedTickPolicy: Int32, Sendable, CaseIterable {
    /// Fire once, reporting the latest grid point passed and how many were skipped; the grid goes
    /// on from there. Lateness never accumulates.
    case skip = 0
    /// Fire once for every missed grid point, back to back (one per loop pass), each reporting its
    /// own fire date, then go on with the grid.
    case burst = 1
    /// Fire once, reporting the missed fire date, and restart the grid one interval after the late
    /// fire: the schedule shifts by the lateness, however small (tokio's `Delay`). A fire counts as
    /// late when it comes after its tolerance window (fire date + tolerance) and more than 5 ms
    /// after its fire date (half the interval, for intervals under 10 ms), so that a wake-up's own
    /// latency never moves the grid, or when it comes an interval or more after its fire date; any
    /// other fire keeps the grid. A 50 ms timer whose loop is blocked until 70 ms fires at 70, 120,
    /// 170 ms.
    case delay = 2
}
