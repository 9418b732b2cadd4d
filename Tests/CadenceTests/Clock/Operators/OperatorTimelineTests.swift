import Cadence
import Testing

/// A debounce, a throttle and a grid timer written against `some Clock<Duration>`, run on a
/// virtual loop by its test driver: each produces exactly the timeline its fire dates imply,
/// whether the test sends the inputs between advances or timers on the loop send them.
@Suite struct OperatorTimelineTests {
    @Test(arguments: [OperatorScenario.debounce, .throttleLatest, .throttleFirst])
    func inputsSentBetweenAdvances(_ scenario: OperatorScenario) async throws {
        #expect(try await scenario.run(feed: .stepwise) == scenario.expected)
    }

    @Test(arguments: [OperatorScenario.debounce, .throttleLatest, .throttleFirst])
    func inputsSentByTimersOnTheLoop(_ scenario: OperatorScenario) async throws {
        #expect(try await scenario.run(feed: .timers) == scenario.expected)
    }

    @Test func aGridTimerSkipsTheTicksItMissed() async throws {
        #expect(try await OperatorScenario.gridTimer.run() == OperatorScenario.gridTimer.expected)
    }

    @Test func theDriverShownInTheDocs() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let (input, send) = AsyncStream.makeStream(of: String.self)
        let output = TimelineRecorder(input.debounce(for: .milliseconds(300), clock: clock, executor: loop), on: loop)
        send.yield("a")                                         // at 0 ms
        try await loop.advance(by: .milliseconds(100))
        send.yield("ab")                                        // at 100 ms: "a" is dropped
        try await loop.advance(by: .seconds(1))
        send.finish()
        try await loop.advance(by: .zero)
        #expect(output.events == ["ab@400", "|@1100"])
    }
}
