@testable import Cadence
import Testing

/// Repeating timers stay on their grid: a huge interval saturates. The grid, late fires and the
/// missed-tick policies are scenarios of the corpus (Tests/Scenarios/grid.jsonl).
@Suite struct GridTests {
    @Test func hugeIntervalSaturatesInsteadOfWrapping() throws {
        let v = VirtualLoop()
        let fired = Shared(0)
        let publisher = try TimerPublisher(every: 1e300, on: v.loop, in: .default)
        let subscription = publisher.subscribe { _ in fired.value += 1 }
        let connection = publisher.connect()
        try v.loop.run(for: 1e9)
        #expect(fired.value == 0)
        #expect(v.loop.armedTimerCount == 1 && !subscription.isCancelled && !connection.isCancelled)
    }
}
