import Cadence
import FoundationEssentials
import Testing

/// `for await` over timers and streams.
@Suite(.serialized) struct AsyncValuesTests {
    @Test func fireDatesOfATimerOnItsOwnThread() async throws {
        let loop = try Loop()
        try loop.startThread()
        let timer = try TimerPublisher(every: 0.02, on: loop, in: .common).autoconnect()
        var dates: [Date] = []
        for await date in timer.values {
            dates.append(date)
            if dates.count == 3 { break }
        }
        #expect(dates.count == 3)
        let gaps = zip(dates.dropFirst(), dates).map { $0.timeIntervalSince($1) }
        #expect(gaps.allSatisfy { abs($0 - 0.02) < 1e-6 })  // on the grid
        try await Task.sleep(for: .milliseconds(30))
        #expect(timer.subscriberCount == 0 && !timer.isConnected)  // leaving the loop cancelled it
        try loop.stopThread()
        try loop.close()
    }

    @Test func countdownValuesEndAtZero() async throws {
        let clock = VirtualScheduler()
        let values = try clock.countdown(to: clock.now.addingTimeInterval(3), tick: 0.25).values()
        try clock.advance(by: 4)
        var seen: [Int] = []
        for await value in values { seen.append(value) }
        #expect(seen == [3, 2, 1, 0])
        #expect(clock.pendingCount == 0)
    }
}
