import Cadence
import XCTest

/// The operator scenarios from XCTest: the same driver, asserted with `XCTAssertEqual`.
final class OperatorTimelineXCTests: XCTestCase {
    func testDebounce() async throws {
        let events = try await OperatorScenario.debounce.run()
        XCTAssertEqual(events, OperatorScenario.debounce.expected)
    }

    func testThrottle() async throws {
        for scenario in [OperatorScenario.throttleLatest, .throttleFirst] {
            let events = try await scenario.run(feed: .timers)
            XCTAssertEqual(events, scenario.expected, "\(scenario)")
        }
    }

    func testGridTimer() async throws {
        let events = try await OperatorScenario.gridTimer.run()
        XCTAssertEqual(events, OperatorScenario.gridTimer.expected)
    }

    /// A synchronous XCTest method drives the loop with `run(for:)`, which blocks its thread.
    func testDebounceFromASynchronousTest() throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let (input, send) = AsyncStream.makeStream(of: Int.self)
        let output = TimelineRecorder(input.debounce(for: .milliseconds(300), clock: clock, executor: loop), on: loop)
        for (at, value) in [(100, 1), (200, 2), (900, 3)] {
            try loop.schedule(after: .milliseconds(at)) { _ in send.yield(value) }
        }
        try loop.schedule(after: .milliseconds(1000)) { _ in send.finish() }
        try loop.run(for: .seconds(2))
        XCTAssertEqual(output.events, ["2@500", "3@1200", "|@1200"])
    }
}
