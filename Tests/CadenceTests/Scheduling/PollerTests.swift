import Cadence
import FoundationEssentials
import Synchronization
import Testing

/// The first seed article's exercise, a non-overlapping poller, in virtual time.
@Suite struct PollerTests {
    /// Records when each poll started and ended, in virtual seconds, and how many overlapped.
    final class Log: Sendable {
        let events = Mutex<[String]>([])
        let running = Mutex((now: 0, most: 0))

        func start(_ at: Date) {
            events.withLock { $0.append("poll@\(Int(at.timeIntervalSince1970))") }
            running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
        }

        func end() { running.withLock { $0.now -= 1 } }
        var list: [String] { events.withLock { $0 } }
    }

    /// A poller every 30 s whose polls finish at once, logged.
    func instantPoller(on clock: VirtualScheduler, log: Log) throws -> Poller {
        try Poller(every: 30, on: clock) { done in
            log.start(clock.now)
            log.end()
            done()
        }
    }

    @Test func threePollsInNinetySeconds() throws {
        let clock = VirtualScheduler()
        let log = Log()
        let poller = try instantPoller(on: clock, log: log)
        try clock.advance(by: 90)
        #expect(log.list == ["poll@30", "poll@60", "poll@90"])
        poller.cancel()
        #expect(clock.armedTimerCount == 0)
    }

    @Test func noPollWhileInactiveAndAnImmediatePollWhenActiveAgain() throws {
        let clock = VirtualScheduler()
        let log = Log()
        let poller = try instantPoller(on: clock, log: log)
        try clock.advance(by: 40)
        poller.setActive(false)
        #expect(clock.armedTimerCount == 0)
        try clock.advance(by: 60)
        #expect(log.list == ["poll@30"])
        poller.setActive(true)
        try clock.advance(by: 0)
        #expect(log.list == ["poll@30", "poll@100"])
        try clock.advance(by: 30)
        #expect(log.list == ["poll@30", "poll@100", "poll@130"])
        poller.cancel()
    }

    @Test func pausingRemovesThePollAtOnceOfAnEarlierResume() throws {
        let clock = VirtualScheduler()
        let log = Log()
        let poller = try instantPoller(on: clock, log: log)
        for _ in 0..<1000 {
            poller.setActive(false)
            poller.setActive(true)
        }
        #expect(clock.armedTimerCount == 2)  // the ticks and one poll at once
        poller.setActive(false)
        #expect(clock.armedTimerCount == 0)
        poller.setActive(true)
        poller.cancel()
        #expect(clock.armedTimerCount == 0)
        try clock.advance(by: 100)
        #expect(log.list == [])
    }

    @Test func aSlowResponseNeverOverlapsTheNextPoll() throws {
        let clock = VirtualScheduler()
        let log = Log()
        let poller = try Poller(every: 30, on: clock) { done in
            log.start(clock.now)
            // The response takes 45 s.
            _ = try? clock.schedule(after: clock.now.addingTimeInterval(45), tolerance: 0) {
                log.end()
                done()
            }
        }
        try clock.advance(by: 200)
        #expect(log.list == ["poll@30", "poll@90", "poll@150"])  // the ticks at 60, 120, 180 found a poll running
        #expect(log.running.withLock { $0.most } == 1)
        poller.cancel()
    }

    @Test func toleranceHandedToTheSchedulerIsTenPercent() throws {
        let scheduler = RecordingScheduler()
        let poller = try Poller(every: 30, on: scheduler) { done in done() }
        #expect(scheduler.tolerances == [3.0])
        let custom = try Poller(every: 30, tolerance: 1, on: scheduler) { done in done() }
        #expect(scheduler.tolerances == [3.0, 1.0])
        poller.cancel()
        custom.cancel()
    }

    @Test func badArguments() {
        let clock = VirtualScheduler()
        for interval in [0, -1, Double.nan, .infinity] {
            #expect(throws: CadenceError.invalidArgument) { try Poller(every: interval, on: clock) { $0() } }
        }
        #expect(throws: CadenceError.invalidArgument) { try Poller(every: 1, tolerance: -1, on: clock) { $0() } }
        #expect(clock.armedTimerCount == 0)
    }
}

/// A scheduler that records the tolerance of each repeating schedule and forwards to a virtual one.
final class RecordingScheduler: Scheduler, Sendable {
    private let inner = VirtualScheduler()
    private let recorded = Mutex<[Double]>([])
    var tolerances: [Double] { recorded.withLock { $0 } }
    var now: Date { inner.now }
    var minimumTolerance: Double { 0 }

    func schedule(after date: Date, tolerance: Double, _ action: @escaping @Sendable () -> Void)
        throws(CadenceError) -> any Cancellable {
        try inner.schedule(after: date, tolerance: tolerance, action)
    }

    func schedule(after date: Date, interval: Double, tolerance: Double,
                  _ action: @escaping @Sendable () -> Void) throws(CadenceError) -> any Cancellable {
        recorded.withLock { $0.append(tolerance) }
        return try inner.schedule(after: date, interval: interval, tolerance: tolerance, action)
    }
}

@Suite struct VirtualPrecisionTests {
    /// Dates that go through `Date` (about 0.1 µs of rounding) still land on the exact grid.
    @Test func aPollerStartedAtAnUnroundTimeStaysOnItsGrid() throws {
        let clock = VirtualScheduler()
        try clock.advance(by: 4.7)
        let polls = Mutex(0)
        let poller = try Poller(every: 30, tolerance: 0, on: clock) { done in
            polls.withLock { $0 += 1 }
            done()
        }
        try clock.advance(by: 90)
        #expect(polls.withLock { $0 } == 3)
        poller.cancel()
    }

    @Test func aCountdownFromAnUnroundTimeCountsWholeSeconds() throws {
        let clock = VirtualScheduler()
        try clock.advance(by: 4.7)
        let countdown = try TimelineRecorder(clock.countdown(to: clock.now.addingTimeInterval(2), tick: 0.1),
                                             scheduler: clock)
        try clock.advance(by: 3)
        #expect(countdown.events == ["2@4700", "1@5700", "0@6700", "|@6700"])
    }

    @Test func virtualLoopsHaveNoThread() throws {
        #expect(throws: CadenceError.notSupported) { try Loop.virtual().startThread() }
    }
}
