import Cadence
import FoundationEssentials
import Glibc
import Testing

/// The first seed article's measurements, on the real libuv clock, with the article's windows.
/// Serialized and short, so that a loaded 2-core machine does not make them flaky.
@Suite(.serialized) struct SeedArticleTests {
    @Test func timerPublisherMustBeConnected() throws {
        let loop = try Loop()
        defer { try? loop.close() }
        let ticks = Shared(0)
        let publisher = try TimerPublisher(every: 0.05, on: loop, in: .common)
        let handle = publisher.sink { _ in ticks.value += 1 }
        try loop.run(for: 0.3)
        #expect(ticks.value == 0)  // subscribed, never connected
        let connection = publisher.connect()
        try loop.run(for: 0.31)
        #expect((5...7).contains(ticks.value))
        connection.cancel()
        let atStop = ticks.value
        try loop.run(for: 0.2)
        #expect(ticks.value == atStop)
        withExtendedLifetime(handle) {}
    }

    @Test func autoconnectSharesTicksAndRestarts() throws {
        let loop = try Loop()
        defer { try? loop.close() }
        let early = Recorder<Date>(), late = Recorder<Date>()
        let shared = try TimerPublisher(every: 0.1, on: loop, in: .common).autoconnect()
        let earlyHandle = shared.sink { early.append($0) }
        try loop.run(for: 0.25)
        let lateHandle = shared.sink { late.append($0) }
        try loop.run(for: 0.3)
        #expect(early.count > late.count && !late.isEmpty)
        #expect(Set(late.values).isSubset(of: Set(early.values)))
        earlyHandle.cancel()
        lateHandle.cancel()
        let idle = early.count + late.count
        try loop.run(for: 0.3)
        #expect(early.count + late.count == idle)
        let restarted = Shared(0)
        let restartedHandle = shared.sink { _ in restarted.value += 1 }
        try loop.run(for: 0.35)
        #expect(restarted.value >= 2)
        restartedHandle.cancel()
    }

    @Test func defaultModeTimerWaitsWhileTracking() throws {
        let loop = try Loop()
        defer { try? loop.close() }
        let tracking = RunLoopMode("ExampleTrackingMode")
        try loop.addCommonMode(tracking)
        let defaultTicks = Shared(0), commonTicks = Shared(0)
        let d = try TimerPublisher(every: 0.05, on: loop, in: .default).autoconnect().sink { _ in defaultTicks.value += 1 }
        let c = try TimerPublisher(every: 0.05, on: loop, in: .common).autoconnect().sink { _ in commonTicks.value += 1 }
        try loop.run(mode: tracking, for: 0.5)
        #expect(defaultTicks.value == 0)
        #expect(commonTicks.value >= 8)
        d.cancel()
        c.cancel()
    }

    @Test func blockedThreadSkipsTicks() throws {
        let loop = try Loop()
        defer { try? loop.close() }
        let ticks = Recorder<TimerTick>()
        let handle = try TimerPublisher(every: 0.1, on: loop, in: .common).autoconnect().subscribe { ticks.append($0) }
        let start = loop.now
        try loop.run(for: 0.25)
        usleep(550_000)  // the loop's thread is blocked
        try loop.run(for: 0.35)
        handle.cancel()
        let dates = ticks.values.map(\.fireDate)
        let gaps = zip(dates.dropFirst(), dates).map { $0.timeIntervalSince($1) }
        #expect(gaps.contains { $0 > 0.5 })
        #expect(ticks.values.contains { $0.skipped >= 4 })
        let tickBased = Double(dates.count) * 0.1
        let wallClock = dates.last!.timeIntervalSince(start)
        #expect(wallClock - tickBased > 0.3)
        // Every fire date is on the grid set by the first one.
        for date in dates {
            let periods = date.timeIntervalSince(dates[0]) / 0.1
            #expect(abs(periods - periods.rounded()) < 1e-4)
        }
    }

    @Test func toleranceNeverEarlyNeverBeyond() throws {
        let loop = try Loop()
        defer { try? loop.close() }
        let lateness = Recorder<Double>()
        let dates = Recorder<Date>()
        let start = loop.now
        let handle = try TimerPublisher(every: 0.1, tolerance: 0.05, on: loop, in: .common).autoconnect()
            .sink { date in
                dates.append(date)
                lateness.append(loop.now.timeIntervalSince(date))
            }
        try loop.run(for: 1.05)
        handle.cancel()
        #expect(dates.count >= 9)
        let offsets = dates.values.map { ($0.timeIntervalSince(start) * 1000).truncatingRemainder(dividingBy: 100) }
        #expect(offsets.allSatisfy { $0 < 50 })
        #expect(lateness.values.allSatisfy { $0 >= 0 })
        #expect(lateness.values.allSatisfy { $0 < 0.1 })  // 50 ms tolerance plus room for a loaded machine
    }

    @Test func loopThatNobodyRunsFiresNothing() throws {
        let loop = try Loop()
        defer { try? loop.close() }
        let ticks = Shared(0)
        let publisher = try TimerPublisher(every: 0.05, on: loop, in: .common)
        let handle = publisher.sink { _ in ticks.value += 1 }
        let connection = publisher.connect()
        usleep(300_000)
        #expect(ticks.value == 0)
        #expect(publisher.isConnected)
        connection.cancel()
        handle.cancel()
    }
}
