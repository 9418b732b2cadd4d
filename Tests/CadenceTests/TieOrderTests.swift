@testable import Cadence
import Testing

/// Ties (Cadence.docc/Semantics.md, "Passes and callbacks") at scale: 400 timers of 0.3 s and 0.5 s, scheduled in turn at
/// 0, meet at 1.5 s and fire in scheduling order. The cases with a few timers are scenarios of
/// the corpus (Tests/Scenarios/ties.jsonl).
@Suite struct TieOrderTests {
    /// With enough timers due at once (the threshold lowered from 2¹⁷ to the tests' size), the
    /// pass takes them all and sorts them (`FireOrder`): the same order.
    @Test func manyTimersTakenAtOnceKeepTheirPlace() throws {
        let v = VirtualLoop()
        v.loop.queues.takeAllMinimum = TimerQueues.testTakeAllMinimum
        let order = Recorder<Int>()
        let timers = try (0..<400).map { index in
            let interval = index % 2 == 0 ? 0.3 : 0.5
            return try v.loop.schedule(after: interval, interval: interval) { tick in
                if tick.milliseconds == 1500 { order.append(index) }
            }
        }
        try withExtendedLifetime(timers) { try v.loop.run(for: 1.5) }
        #expect(order.values == Array(0..<400))
    }
}
