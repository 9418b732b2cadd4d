import Cadence
import Testing

/// Takes `count` ticks of a grid timer on `clock`: each tick's grid point and when it was seen.
func gridTicks<C: Clock>(every interval: Duration, tolerance: Duration? = nil, count: Int,
                         on clock: C) async -> [(due: C.Instant, seen: C.Instant)] where C.Duration == Duration {
    var ticks: [(due: C.Instant, seen: C.Instant)] = []
    for await due in GridTimer(interval: interval, tolerance: tolerance, clock: clock) {
        ticks.append((due, clock.now))
        if ticks.count == count { break }
    }
    return ticks
}

/// The same generic function on a real loop's clock, a virtual loop's clock and `ContinuousClock`.
@Suite(.serialized) struct GridTimerTests {
    /// Ticks one interval apart on a grid, each seen at or after its grid point.
    func check<I: InstantProtocol>(_ ticks: [(due: I, seen: I)], interval: Duration, slack: Duration)
        where I.Duration == Duration {
        #expect(ticks.count == 5)
        for (before, after) in zip(ticks, ticks.dropFirst()) {
            // A late tick may skip grid points, never leave the grid.
            let step = before.due.duration(to: after.due)
            #expect(step >= interval && step / interval == Double(Int(step / interval)))
        }
        #expect(ticks.allSatisfy { $0.seen >= $0.due && $0.due.duration(to: $0.seen) <= slack })
    }

    @Test func onARealLoopsClock() async throws {
        try await withRunningLoop { loop in
            let clock = loop.clock
            let ticks = await Task(executorPreference: loop) {  // resumed on the loop's thread
                await gridTicks(every: .milliseconds(20), tolerance: .milliseconds(2), count: 5, on: clock)
            }.value
            check(ticks, interval: .milliseconds(20), slack: .milliseconds(250))
        }
    }

    @Test func onAVirtualLoopsClockExactly() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let task = Task(executorPreference: loop) {
            await gridTicks(every: .milliseconds(20), tolerance: .milliseconds(2), count: 5, on: clock)
        }
        try loop.run(for: 1)
        let ticks = await task.value
        check(ticks, interval: .milliseconds(20), slack: .zero)  // seen exactly at each grid point
        #expect(ticks.map(\.due.nanoseconds) == [20, 40, 60, 80, 100].map { $0 * 1_000_000 })
    }

    @Test func onContinuousClock() async throws {
        let ticks = await gridTicks(every: .milliseconds(20), tolerance: .milliseconds(2), count: 5, on: ContinuousClock())
        // Resumed on the global pool, which other tests may keep busy: a wider bound.
        check(ticks, interval: .milliseconds(20), slack: .seconds(1))
    }
}
