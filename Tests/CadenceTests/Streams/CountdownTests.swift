import Cadence
import Testing

/// Countdowns computed from a deadline (`Loop.countdown(to:tick:)`), in virtual time.
@Suite struct CountdownTests {
    /// On any `Scheduler` (here `VirtualScheduler`, whose `advance` runs timers): the countdown
    /// ends at its deadline and removes its timers. Its timelines are the scenarios of
    /// Tests/Scenarios/countdown.jsonl, on a loop, in every language.
    @Test func onAnySchedulerItEndsAtItsDeadlineAndRemovesItsTimers() throws {
        let clock = VirtualScheduler()
        let countdown = try TimelineRecorder(clock.countdown(to: clock.now.addingTimeInterval(3), tick: 0.25),
                                             scheduler: clock)
        #expect(countdown.events == [])  // a registering call never calls back
        try clock.advance(by: 5)
        #expect(countdown.events.last == "|@3000")
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
