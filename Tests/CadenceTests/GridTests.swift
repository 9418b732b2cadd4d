@testable import Cadence
import Testing

/// Repeating timers stay on their grid; late fires happen once and report skipped ticks.
@Suite struct GridTests {
    @Test func firstTickOneIntervalAfterConnect() throws {
        let v = VirtualLoop()
        let fired = Recorder<Int>()
        let publisher = try TimerPublisher(every: 0.1, on: v.loop, in: .default)
        let subscription = publisher.subscribe { fired.append($0.milliseconds) }
        v.block(for: 0.05)
        let connection = publisher.connect()
        try v.loop.run(for: 0.35)
        #expect(fired.values == [150, 250, 350])
        connection.cancel()
        subscription.cancel()
    }

    @Test func blockedThreadFiresOnceOnTheGrid() throws {
        let v = VirtualLoop()
        let ticks = Recorder<TimerTick>()
        let publisher = try TimerPublisher(every: 0.1, on: v.loop, in: .common)
        _ = publisher.subscribe { ticks.append($0) }
        _ = publisher.connect()
        try v.loop.run(for: 0.25)
        v.block(for: 0.55)
        try v.loop.run(for: 0.35)
        #expect(ticks.values.map(\.milliseconds) == [100, 200, 800, 900, 1000, 1100])
        #expect(ticks.values.map(\.skipped) == [0, 0, 5, 0, 0, 0])
    }

    @Test func slowCallbackDoesNotStretchThePeriod() throws {
        let v = VirtualLoop()
        let fired = Recorder<Int>()
        let publisher = try TimerPublisher(every: 1, on: v.loop, in: .default)
        _ = publisher.subscribe { tick in
            fired.append(tick.milliseconds)
            v.block(for: 0.4)  // the callback takes 0.4 s
        }
        _ = publisher.connect()
        try v.loop.run(for: 3.5)
        #expect(fired.values == [1000, 2000, 3000])
    }

    @Test func hugeIntervalSaturatesInsteadOfWrapping() throws {
        let v = VirtualLoop()
        let fired = Shared(0)
        let publisher = try TimerPublisher(every: 1e300, on: v.loop, in: .default)
        _ = publisher.subscribe { _ in fired.value += 1 }
        _ = publisher.connect()
        try v.loop.run(for: 1e9)
        #expect(fired.value == 0)
        #expect(v.loop.armedTimerCount == 1)
    }

    @Test func toleranceNeverFiresEarly() throws {
        let v = VirtualLoop()
        let fired = Recorder<Int>()
        let publisher = try TimerPublisher(every: 0.1, tolerance: 0.05, on: v.loop, in: .default)
        _ = publisher.subscribe { tick in
            #expect(v.milliseconds >= tick.milliseconds)
            fired.append(tick.milliseconds)
        }
        _ = publisher.connect()
        try v.loop.run(for: 1.05)
        #expect(fired.values == Array(stride(from: 100, through: 1000, by: 100)))
    }
}
