@testable import Cadence
import FoundationEssentials
import Testing

/// The `Duration` forms of the calls that take seconds give the same timelines as the `Double`
/// forms, round up to whole nanoseconds, and reject bad values with the same errors.
@Suite struct DurationTests {
    /// Runs `body` on a fresh virtual loop and returns what it recorded: fire dates in virtual
    /// nanoseconds, each with the clock's reading when it fired.
    private func timeline(_ body: (Loop, Recorder<String>) throws -> Void) throws -> [String] {
        let loop = Loop.virtual()
        let log = Recorder<String>()
        try body(loop, log)
        return log.values
    }

    private func entry(_ tick: TimerTick, _ loop: Loop) -> String {
        "\(UInt64((tick.fireDateSeconds * 1e9).rounded()))@\(loop.timeSource.now())"
    }

    @Test func oneShotsAndRepeatingTimersKeepTheSameTimeline() throws {
        func run(_ schedule: (Loop, Recorder<String>) throws -> [ScheduledTimer]) throws -> [String] {
            try timeline { loop, log in
                let timers = try schedule(loop, log)
                try loop.run(for: 1)
                #expect(loop.armedTimerCount == 1)  // the repeating timer
                timers.forEach { $0.cancel() }
            }
        }
        let seconds = try run { loop, log in [
            try loop.schedule(after: 0.25, tolerance: 0.05) { log.append("once " + self.entry($0, loop)) },
            try loop.schedule(after: 0.1, interval: 0.3, tolerance: 0.01, missedTicks: .skip) {
                log.append("every " + self.entry($0, loop))
            },
        ] }
        let durations = try run { loop, log in [
            try loop.schedule(after: .milliseconds(250), tolerance: .milliseconds(50)) { log.append("once " + self.entry($0, loop)) },
            try loop.schedule(after: .milliseconds(100), interval: .milliseconds(300), tolerance: .milliseconds(10),
                              missedTicks: .skip) { log.append("every " + self.entry($0, loop)) },
        ] }
        #expect(seconds == ["every 100000000@100000000", "once 250000000@250000000", "every 400000000@400000000",
                            "every 700000000@700000000", "every 1000000000@1000000000"])
        #expect(durations == seconds)
    }

    @Test func publishersResetsRunsAndAdvancesKeepTheSameTimeline() throws {
        func run(_ seconds: Bool) throws -> [String] {
            try timeline { loop, log in
                let publisher = seconds
                    ? try TimerPublisher(every: 0.2, tolerance: 0.02, on: loop)
                    : try TimerPublisher(every: .milliseconds(200), tolerance: .milliseconds(20), on: loop)
                #expect(publisher.interval == 0.2 && publisher.tolerance == 0.02)
                let subscription = publisher.subscribe { log.append("tick " + self.entry($0, loop)) }
                let connection = publisher.connect()
                let once = seconds
                    ? try loop.schedule(after: 0.3) { log.append("once " + self.entry($0, loop)) }
                    : try loop.schedule(after: .milliseconds(300)) { log.append("once " + self.entry($0, loop)) }
                if seconds { try loop.run(for: 0.25) } else { try loop.run(for: .milliseconds(250)) }
                if seconds { try once.reset(after: 0.5) } else { try once.reset(after: .milliseconds(500)) }
                if seconds { try loop.jumpClock(by: 0.3) } else { try loop.jumpClock(by: .milliseconds(300)) }
                if seconds { try loop.run(for: 0.5) } else { try loop.run(for: .milliseconds(500)) }
                connection.cancel()
                subscription.cancel()
            }
        }
        let seconds = try run(true)
        #expect(seconds == ["tick 200000000@200000000", "tick 400000000@550000000", "tick 600000000@600000000",
                            "once 750000000@750000000", "tick 800000000@800000000", "tick 1000000000@1000000000"])
        #expect(try run(false) == seconds)
    }

    @Test func attosecondsRoundUpToWholeNanoseconds() throws {
        let log = Recorder<String>()
        let loop = Loop.virtual()
        let odd = Duration(secondsComponent: 1, attosecondsComponent: 1)  // 1 s and 1e-18 s
        try loop.schedule(after: odd) { log.append(self.entry($0, loop)) }
        try loop.schedule(after: .nanoseconds(7)) { log.append(self.entry($0, loop)) }
        try loop.schedule(after: Duration(secondsComponent: 0, attosecondsComponent: 999_999_999)) {
            log.append(self.entry($0, loop))
        }
        try loop.run(for: Duration(secondsComponent: 1, attosecondsComponent: 1_000_000_000))
        #expect(log.values == ["1@1", "7@7", "1000000001@1000000001"])
        #expect(loop.timeSource.now() == 1_000_000_001)
        #expect(try nanoseconds(from: .seconds(17_999_999_999) + .nanoseconds(999_999_999), allowZero: false,
                                argument: "x") == 17_999_999_999_999_999_999)
    }

    @Test func hugeDurationsSaturateAsHugeSecondsDo() throws {
        let loop = Loop.virtual()
        let seconds = try loop.schedule(after: 2e10) { _ in }
        let duration = try loop.schedule(after: .seconds(20_000_000_000)) { _ in }
        let longest = try loop.schedule(after: .seconds(Int64.max)) { _ in }
        #expect(seconds.fireDate != nil && duration.fireDate == seconds.fireDate && longest.fireDate == seconds.fireDate)
        #expect(try nanoseconds(from: .seconds(Int64.max), allowZero: false, argument: "x") == .max)
    }

    /// Each pair: the `Double` form and the `Duration` form of one call with the same bad value,
    /// which get the same error from the same call; the `Duration` form's message shows the
    /// `Duration` as given, where the value is checked at the call (a stream's, checked when
    /// subscribing, shows the seconds it was given).
    @Test func badDurationsGetTheErrorsOfBadSeconds() throws {
        let loop = Loop.virtual()
        let timer = try loop.schedule(after: 1) { _ in }
        let scheduler = VirtualScheduler()
        let pairs: [(String, () throws -> Void, () throws -> Void)] = [
            ("run", { try loop.run(for: -0.5) }, { try loop.run(for: .milliseconds(-500)) }),
            ("run to the clock's end", { try loop.run(for: 2e10) }, { try loop.run(for: .seconds(20_000_000_000)) }),
            ("advance", { try loop.jumpClock(by: -1) }, { try loop.jumpClock(by: .seconds(-1)) }),
            ("advance to the clock's end", { try loop.jumpClock(by: 2e10) },
             { try loop.jumpClock(by: .seconds(20_000_000_000)) }),
            ("one-shot delay", { _ = try loop.schedule(after: -1) { _ in } }, { _ = try loop.schedule(after: .seconds(-1)) { _ in } }),
            ("one-shot tolerance", { _ = try loop.schedule(after: 1, tolerance: -0.25) { _ in } },
             { _ = try loop.schedule(after: .seconds(1), tolerance: .milliseconds(-250)) { _ in } }),
            ("zero interval", { _ = try loop.schedule(after: 0, interval: 0) { _ in } },
             { _ = try loop.schedule(after: Duration.zero, interval: Duration.zero) { _ in } }),
            ("negative interval", { _ = try loop.schedule(after: 0, interval: -2) { _ in } },
             { _ = try loop.schedule(after: .zero, interval: .seconds(-2)) { _ in } }),
            ("reset", { try timer.reset(after: -1) }, { try timer.reset(after: .seconds(-1)) }),
            ("publisher interval", { _ = try TimerPublisher(every: 0, on: loop) }, { _ = try TimerPublisher(every: Duration.zero, on: loop) }),
            ("publisher tolerance", { _ = try TimerPublisher(every: 1, tolerance: -1, on: loop) },
             { _ = try TimerPublisher(every: .seconds(1), tolerance: .seconds(-1), on: loop) }),
            ("scheduler tolerance", { _ = try loop.schedule(after: loop.now, tolerance: -1) {} },
             { _ = try loop.schedule(after: loop.now, tolerance: Duration.seconds(-1)) {} }),
            ("scheduler interval", { _ = try loop.schedule(after: loop.now, interval: 0, tolerance: 0) {} },
             { _ = try loop.schedule(after: loop.now, interval: Duration.zero, tolerance: .zero) {} }),
            ("ticks", { _ = try scheduler.ticks(every: -1).subscribe { _ in } },
             { _ = try scheduler.ticks(every: .seconds(-1)).subscribe { _ in } }),
            ("countdown", { _ = try scheduler.countdown(to: scheduler.now, tick: 0).subscribe { _ in } },
             { _ = try scheduler.countdown(to: scheduler.now, tick: Duration.zero).subscribe { _ in } }),
            ("poller", { _ = try Poller(every: -1, on: scheduler) { $0() } },
             { _ = try Poller(every: .seconds(-1), on: scheduler) { $0() } }),
            ("poller tolerance", { _ = try Poller(every: 1, tolerance: -1, on: scheduler) { $0() } },
             { _ = try Poller(every: .seconds(1), tolerance: .seconds(-1), on: scheduler) { $0() } }),
            ("virtual scheduler", { try scheduler.advance(by: -1) }, { try scheduler.advance(by: .seconds(-1)) }),
        ]
        let streams: Set = ["ticks", "countdown"]
        for (name, seconds, duration) in pairs {
            let expected = try #require(throws: CadenceError.self, "\(name)") { try seconds() }
            let actual = try #require(throws: CadenceError.self, "\(name)") { try duration() }
            #expect(expected == .invalidArgument, "\(name)")
            #expect(actual == expected && actual.call == expected.call, "\(name)")
            #expect(actual.message.contains("got .") == !streams.contains(name), "\(name): \(actual.message)")
        }
        #expect(loop.timeSource.now() == 0 && loop.armedTimerCount == 1)  // nothing moved, nothing armed
    }

    /// A bad `Duration` is shown as the caller wrote it, in the largest unit that holds it whole,
    /// not as seconds (`got -0.005` read as a mistake of the caller's unit), with the rule for a
    /// `Duration` (always finite); the `Double` forms keep showing seconds.
    @Test func badDurationsAreShownAsGiven() throws {
        let loop = Loop.virtual()
        func message(_ call: () throws -> Void) throws -> String {
            try #require(throws: CadenceError.self) { try call() }.description
        }
        #expect(try message { _ = try TimerPublisher(every: .milliseconds(-5), on: loop) }
                == "TimerPublisher(every:tolerance:on:in:missedTicks:): interval must be > 0, got .milliseconds(-5)")
        #expect(try message { _ = try TimerPublisher(every: .milliseconds(-5) + .microseconds(1), on: loop) }
                == "TimerPublisher(every:tolerance:on:in:missedTicks:): interval must be > 0, got .microseconds(-4999)")
        #expect(try message { _ = try TimerPublisher(every: Duration.zero, on: loop) }
                == "TimerPublisher(every:tolerance:on:in:missedTicks:): interval must be > 0, got .zero")
        #expect(try message { _ = try loop.schedule(after: .zero, interval: .milliseconds(-250)) { _ in } }
                == "Loop.schedule(after:interval:tolerance:in:missedTicks:_:): interval must be > 0, got .milliseconds(-250)")
        #expect(try message { _ = try loop.schedule(after: .seconds(-2)) { _ in } }
                == "Loop.schedule(after:tolerance:in:_:): delay must be >= 0, got .seconds(-2)")
        #expect(try message { try loop.run(for: .nanoseconds(-7)) } == "Loop.run(mode:for:): duration must be >= 0, got .nanoseconds(-7)")
        #expect(try message { try loop.jumpClock(by: .seconds(-1) / 3) }
                == "Loop.jumpClock(by:): duration must be >= 0, got Duration(attoseconds: -333333333333333333)")
        #expect(try message { try loop.run(for: .seconds(20_000_000_000)) }
                == "Loop.run(mode:for:): duration must keep a virtual clock before its end (2^64 - 1 ns, about 584 "
                + "years after its start), got .seconds(20000000000)")
        #expect(try message { _ = try loop.schedule(after: loop.now, interval: .seconds(1), tolerance: .milliseconds(-1)) {} }
                == "Loop.schedule(after:interval:tolerance:_:): tolerance must be >= 0, got .milliseconds(-1)")
        #expect(try message { _ = try Poller(every: .microseconds(-3), on: loop) { $0() } }
                .hasSuffix("interval must be > 0, got .microseconds(-3)"))
        #expect(try message { _ = try LoopClock.nanoseconds(ofTolerance: .milliseconds(-5)) }
                == "tolerance must be >= 0, got .milliseconds(-5)")  // LoopClock.sleep(until:tolerance:)'s
        // The Double forms say seconds, and that they must be finite.
        #expect(try message { _ = try TimerPublisher(every: -0.005, on: loop) }
                == "TimerPublisher(every:tolerance:on:in:missedTicks:): interval must be > 0 and finite, got -0.005")
        #expect(loop.timeSource.now() == 0 && loop.armedTimerCount == 0)
    }

    @Test func schedulerStreamsKeepTheSameTimeline() throws {
        func run(_ seconds: Bool) throws -> [[String]] {
            let scheduler = VirtualScheduler()
            let ticks = try TimelineRecorder(seconds ? scheduler.ticks(every: 0.5, tolerance: 0)
                                                     : scheduler.ticks(every: .milliseconds(500), tolerance: .zero),
                                             scheduler: scheduler)
            let deadline = scheduler.now.addingTimeInterval(2)
            let countdown = try TimelineRecorder(seconds ? scheduler.countdown(to: deadline, tick: 0.25)
                                                         : scheduler.countdown(to: deadline, tick: .milliseconds(250)),
                                                 scheduler: scheduler)
            let polls = Recorder<Int>()
            let poller = seconds
                ? try Poller(every: 0.75, on: scheduler) { done in polls.append(1); done() }
                : try Poller(every: .milliseconds(750), on: scheduler) { done in polls.append(1); done() }
            if seconds { try scheduler.advance(by: 2.5) } else { try scheduler.advance(by: .milliseconds(2500)) }
            #expect(poller.interval == 0.75 && poller.tolerance == 0.075)
            poller.cancel()
            ticks.cancel()
            return [ticks.events, countdown.events, ["\(polls.count) polls"]]
        }
        let seconds = try run(true)
        #expect(seconds == [["0@500", "1@1000", "2@1500", "3@2000", "4@2500"],
                            ["2@0", "1@1000", "0@2000", "|@2000"], ["3 polls"]])
        #expect(try run(false) == seconds)
    }
}
