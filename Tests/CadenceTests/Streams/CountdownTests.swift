import Cadence
import Testing

/// Countdowns computed from a deadline (`Loop.countdown(to:tick:)`), in virtual time.
@Suite struct CountdownTests {
    @Test func survivesJumpsOfTheClock() throws {
        let clock = VirtualScheduler()
        let deadline = clock.now.addingTimeInterval(3)
        let countdown = try TimelineRecorder(clock.countdown(to: deadline, tick: 0.25), scheduler: clock)
        try clock.advance(by: 1.2)
        try clock.advance(by: 1.5)  // a long jump stands in for a blocked thread
        try clock.advance(by: 2)
        #expect(countdown.events == ["3@0", "2@1000", "1@2000", "0@3000", "|@3000"])
        #expect(clock.armedTimerCount == 0)  // finishing removed its timers
    }

    @Test func blockedThreadCostsOneStaleValueNotDrift() throws {
        let clock = VirtualScheduler()
        let countdown = try TimelineRecorder(clock.countdown(to: clock.now.addingTimeInterval(5), tick: 0.25),
                                             scheduler: clock)
        try clock.advance(by: 0.5)
        try clock.loop.jumpClock(by: 2.9)  // blocked: no tick ran from 0.5 to 3.4
        try clock.advance(by: 0.1)
        #expect(countdown.events == ["5@0", "2@3400"])  // the overdue tick fires at once, with the right value
        countdown.cancel()
        #expect(clock.armedTimerCount == 0)
    }

    @Test func aTickThatMissesTheDeadlineStillEndsAtIt() throws {
        let clock = VirtualScheduler()
        let countdown = try TimelineRecorder(clock.countdown(to: clock.now.addingTimeInterval(2), tick: 0.7),
                                             scheduler: clock)
        try clock.advance(by: 5)
        #expect(countdown.events == ["2@0", "1@1400", "0@2000", "|@2000"])
    }

    /// Subscribing never delivers from inside the call (libuv's rule: a registering call never
    /// calls back); the first value comes on the next pass, at the same virtual time.
    @Test func theFirstValueComesOnTheNextPass() throws {
        let clock = VirtualScheduler()
        let countdown = try TimelineRecorder(clock.countdown(to: clock.now.addingTimeInterval(3), tick: 1),
                                             scheduler: clock)
        #expect(countdown.events == [])
        try clock.advance(by: 0)
        #expect(countdown.events == ["3@0"])
    }

    @Test func pastDeadlineFinishesOnTheNextPass() throws {
        let clock = VirtualScheduler()
        try clock.advance(by: 10)
        let countdown = try TimelineRecorder(clock.countdown(to: clock.now.addingTimeInterval(-1), tick: 1),
                                             scheduler: clock)
        #expect(countdown.events == [])
        #expect(clock.armedTimerCount == 1)  // only the first pass's one-shot
        try clock.advance(by: 0)
        #expect(countdown.events == ["0@10000", "|@10000"])
        #expect(clock.armedTimerCount == 0)
    }

    @Test func cancelledBeforeTheFirstPassDeliversNothing() throws {
        let loop = Loop.virtual()
        let deadline = loop.now.addingTimeInterval(3)
        let subscription = try loop.countdown(to: deadline, tick: 1).subscribe { _ in Issue.record("delivered") }
        #expect(subscription.cancel() == true)
        try loop.run(for: 5)
        #expect(loop.armedTimerCount == 0)
    }

    @Test func badArguments() {
        let clock = VirtualScheduler()
        for tick in [0, -1, Double.nan, .infinity] {
            #expect(throws: CadenceError.invalidArgument) {
                try clock.countdown(to: clock.now.addingTimeInterval(3), tick: tick).subscribe { _ in }
            }
        }
        #expect(throws: CadenceError.invalidArgument) {
            try clock.countdown(to: clock.now.addingTimeInterval(.nan), tick: 1).subscribe { _ in }
        }
        #expect(clock.armedTimerCount == 0)
    }
}
