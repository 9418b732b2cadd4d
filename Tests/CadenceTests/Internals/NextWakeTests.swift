@testable import Cadence
import Testing

/// `TimerQueues.nextWakeAndDeadline` against the wake-up rule computed by brute force over the
/// armed timers: D, the earliest end of a tolerance window among the timers that can fire in the
/// mode (its own and, in a common mode, `common`'s), and the wake-up, the latest fire date not
/// after D. Stale heap entries (cancelled timers) are left in the heaps, as cancels leave them.
@Suite struct NextWakeTests {
    struct Armed {
        let id: TimerID
        let mode: Int
        let fireDate: Nanoseconds
        let tolerance: Nanoseconds
    }

    /// Odd seeds draw fire dates and tolerances from narrow ranges, so that windows often end
    /// exactly at another mode's zero-tolerance fire date.
    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func wakesAtTheLatestFireDateNotAfterTheEarliestWindowEnd(seed: UInt64) throws {
        let (dates, tolerances): (UInt64, UInt64) = seed % 2 == 1 ? (20, 10) : (500, 200)
        var queues = TimerQueues()
        try queues.register(RunLoopMode("shared"), common: true)
        try queues.register(RunLoopMode("own"), common: false)
        let modes = [TimerQueues.defaultIndex, TimerQueues.commonIndex,
                     try queues.index(of: RunLoopMode("shared")), try queues.index(of: RunLoopMode("own"))]
        var rng = SplitMix(seed: seed)
        var armed: [Armed] = []
        var exactAtDeadline = 0, earlierThanDeadline = 0
        for _ in 0..<60 {
            if !armed.isEmpty && rng.next() % 3 == 0 {  // a cancel: its entries go stale
                let gone = armed.remove(at: Int(rng.next() % UInt64(armed.count)))
                var action = TimerAction.idle
                #expect(queues.disarm(gone.id, releasing: &action))
            } else {
                let mode = modes[Int(rng.next() % UInt64(modes.count))]
                let fireDate = 1_000 + rng.next() % dates
                let tolerance: Nanoseconds = rng.next() % 2 == 0 ? 0 : rng.next() % tolerances
                let id = queues.arm(fireDate: fireDate, interval: 0, tolerance: tolerance, missedTicks: .skip,
                                    modeIndex: mode, action: .idle)
                armed.append(Armed(id: id, mode: mode, fireDate: fireDate, tolerance: tolerance))
            }
            for mode in modes where mode != TimerQueues.commonIndex {
                let eligible = armed.filter { queues.canFire($0.mode, runningIn: mode) }
                let expected = eligible.map { $0.fireDate + $0.tolerance }.min().map { deadline in
                    (wake: eligible.map(\.fireDate).filter { $0 <= deadline }.max()!, deadline: deadline)
                }
                let got = queues.nextWakeAndDeadline(runningIn: mode)
                #expect(got?.wake == expected?.wake && got?.deadline == expected?.deadline,
                        "seed \(seed), mode \(mode): \(String(describing: got)) for \(String(describing: expected))")
                if let expected {
                    let exact = eligible.contains { $0.tolerance == 0 && $0.fireDate == expected.deadline }
                    if exact { exactAtDeadline += 1 } else { earlierThanDeadline += 1 }
                }
            }
        }
        // Both ways to D: a zero-tolerance timer due at it, and a window that ends first.
        #expect(exactAtDeadline > 0 && earlierThanDeadline > 0)
    }
}
