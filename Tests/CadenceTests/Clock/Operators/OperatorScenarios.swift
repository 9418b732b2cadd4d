import Cadence

/// The three scenarios of the operator tests, each on a fresh virtual loop, returning the timeline
/// it recorded (`"3@600"`: the value 3 at 600 virtual milliseconds). Shared by the Swift Testing
/// and XCTest suites and by the repeat test, which runs each many times in a row.
enum OperatorScenario: String, CaseIterable, Sendable {
    case debounce, throttleLatest, throttleFirst, gridTimer

    /// How a scenario's inputs reach the code under test.
    enum Feed: Sendable {
        /// From the test, between ``Loop/advance(mode:to:)`` calls that stop the clock at each input.
        case stepwise
        /// From timers armed on the loop before one advance over the whole scenario.
        case timers
    }

    /// Inputs at virtual milliseconds; nil finishes the input.
    var inputs: [(at: Int, value: Int?)] {
        switch self {
        case .debounce:  // a burst, a pair, and a value right after an emission, then the end
            [(100, 1), (200, 2), (300, 3), (1000, 4), (1250, 5), (1600, 6), (1700, nil)]
        case .throttleLatest, .throttleFirst:
            [(100, 1), (200, 2), (300, 3), (1300, 4), (1400, 5), (1450, 6), (1500, nil)]
        case .gridTimer:
            []
        }
    }

    /// The timeline the fire dates imply.
    var expected: [String] {
        switch self {
        // Each value a quiet 300 ms after the last of its burst; the last one too, then the end.
        case .debounce: ["3@600", "5@1550", "6@1900", "|@1900"]
        // A 500 ms window from each value that finds none open; what a window kept, at its end.
        case .throttleLatest: ["1@100", "3@600", "4@1300", "6@1800", "|@1800"]
        case .throttleFirst: ["1@100", "2@600", "4@1300", "5@1800", "|@1800"]
        // Grid points of 100 ms, as each was due @ when the consumer saw it: 300 and 400 missed
        // during 250 ms of work, 700 during 200 ms (800 is due as the work ends), 1200 and 1300
        // while the loop's thread was blocked (1100 comes late, once).
        case .gridTimer:
            ["100@100", "200@200", "500@500", "600@600", "800@800", "900@900", "1000@1000",
             "1100@1350", "1400@1400", "1500@1500"]
        }
    }

    /// Runs the scenario on a fresh virtual loop and returns what it recorded.
    func run(feed: Feed = .stepwise) async throws -> [String] {
        let loop = Loop.virtual()
        defer { try? loop.close() }
        let clock = loop.clock
        let (input, send) = AsyncStream.makeStream(of: Int.self)
        let recorder: TimelineRecorder<Int>
        switch self {
        case .debounce:
            recorder = TimelineRecorder(input.debounce(for: .milliseconds(300), clock: clock, executor: loop), on: loop)
        case .throttleLatest, .throttleFirst:
            let throttled = input.throttle(for: .milliseconds(500), clock: clock, latest: self == .throttleLatest,
                                           executor: loop)
            recorder = TimelineRecorder(throttled, on: loop)
        case .gridTimer:
            return try await runGridTimer(on: loop)
        }
        let start = clock.now
        switch feed {
        case .stepwise:
            for (at, value) in inputs {
                try await loop.advance(to: start + .milliseconds(at))
                if let value { send.yield(value) } else { send.finish() }
            }
        case .timers:
            for (at, value) in inputs {
                try loop.schedule(after: .milliseconds(at)) { _ in
                    if let value { send.yield(value) } else { send.finish() }
                }
            }
        }
        try await loop.advance(to: start + .seconds(3))
        return recorder.events
    }

    /// A consumer of a grid timer that records each tick and works for a while after some.
    private func runGridTimer(on loop: Loop) async throws -> [String] {
        let clock = loop.clock
        let start = clock.now
        let recorder = TimelineRecorder<Int>(clock: clock)
        let consumer = Task(executorPreference: loop) {
            for await due in GridTimer(interval: .milliseconds(100), tolerance: nil, clock: clock) {
                let milliseconds = Int(start.duration(to: due) / .milliseconds(1))
                recorder.record(milliseconds)
                if milliseconds == 200 { try? await clock.sleep(for: .milliseconds(250)) }  // work
                if milliseconds == 600 { try? await clock.sleep(for: .milliseconds(200)) }
            }
        }
        try await loop.advance(to: start + .milliseconds(1000))
        try loop.jumpClock(by: .milliseconds(350))  // the loop's thread blocked: nothing runs
        try await loop.advance(by: .zero)
        try await loop.advance(to: start + .milliseconds(1500))
        consumer.cancel()
        await consumer.value
        return recorder.events
    }
}
