/// Which armed timers keep a run until idle going (libuv's `uv_ref` / `uv_unref`).
///
/// Every timer is referenced when it is armed. The count of referenced timers per mode is kept
/// as timers are armed and end (one add each), so asking whether a run still has work is two
/// array reads, never a scan of the timers.
extension TimerQueues {
    /// Whether a run in `mode` has a referenced timer that can fire in it: one in `mode` itself,
    /// or in `common` when `mode` is a common mode (read at each pass, so a mode that becomes
    /// common during a run counts the common timers from then on).
    @inline(__always)
    func hasReferencedTimers(runningIn mode: Int) -> Bool {
        referencedCount[mode] > 0 || (isCommon[mode] && referencedCount[Self.commonIndex] > 0)
    }

    /// Marks an armed timer as keeping a run until idle going or not; false if `id` is not armed
    /// (a cancelled timer, a one-shot that has fired). Marking twice is harmless.
    mutating func setReferenced(_ id: TimerID, _ referenced: Bool) -> Bool {
        guard isArmed(id) else { return false }
        let index = Int(id.slot)
        guard slots[index].isReferenced != referenced else { return true }
        slots[index].isReferenced = referenced
        referencedCount[Int(slots[index].modeIndex)] += referenced ? 1 : -1
        return true
    }

    /// Whether `id` names an armed timer that is referenced.
    func isReferenced(_ id: TimerID) -> Bool {
        isArmed(id) && slots[Int(id.slot)].isReferenced
    }
}
