// The `wake` group through `Task.sleep`: 1000 tasks, each from a random phase sleeping 1 s at a
// time with 100 ms of tolerance, for 5 s, on a Cadence loop that is the program's main and default
// executor (Loop.runMain, CadenceTasks): every sleep is a one-shot timer of the loop. The Dispatch
// peer runs the same tasks (`sleeper` in Common.swift) on Swift's default executor.
import Cadence
import CadenceTasks

/// Runs the sleepers for 5 s and prints their lines. The last thing the process does: the loop
/// stays the program's executor afterwards.
func taskSleepWake() {
    let n = 1000
    try! Loop.runMain { loop in
        var rng = XorShift()  // the same phases as the timers of `wake`
        let s0 = voluntarySwitches(), w0 = loop.wakeups, t0 = monoNs()
        let tasks = (0..<n).map { _ -> Task<(woke: Int, early: Int), Never> in
            let phase = rng.unit()
            return Task.detached { await sleeper(phase: phase) }
        }
        let left = 5_000_000_000 - Int64(monoNs() - t0)
        if left > 0 { try? await Task.sleep(for: .nanoseconds(left)) }  // one more timer of the loop
        let switches = voluntarySwitches() - s0, wakeups = loop.wakeups - w0
        let seconds = Double(monoNs() - t0) / 1e9
        for task in tasks { task.cancel() }
        var counts = [(woke: Int, early: Int)]()
        for task in tasks { counts.append(await task.value) }
        emitSleepers(impl, counts, switches: switches, seconds: seconds)
        emit(impl, "sleep_wakeups_counted_per_s", n, Double(wakeups) / seconds, "1/s")
    }
}
