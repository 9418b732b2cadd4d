import Cadence
import Testing

/// `Loop.advance(by:)` and `advance(to:)`: a virtual loop's run, awaited from outside it.
@Suite struct LoopAdvanceTests {
    @Test func advanceRunsTheTasksOfTheLoopUpToTheInstantAndStopsThere() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let start = clock.now
        let log = TimelineRecorder<Int>(clock: clock)
        let task = Task(executorPreference: loop) {
            for index in 1...5 {
                try await clock.sleep(for: .milliseconds(300))
                log.record(index)
            }
        }
        try await loop.advance(to: start + .milliseconds(700))
        #expect(log.events == ["1@300", "2@600"])
        #expect(clock.now == start + .milliseconds(700))
        try await loop.advance(by: .milliseconds(200))  // to 900: the sleep due there ended in it
        #expect(log.events == ["1@300", "2@600", "3@900"])
        try await loop.advance(to: clock.now)  // the reading itself: nothing new
        try await loop.advance(by: .seconds(1))
        try await task.value
        #expect(log.events == ["1@300", "2@600", "3@900", "4@1200", "5@1500"])
        #expect(clock.now == start + .milliseconds(1900))
    }

    @Test func anInputSentBetweenAdvancesIsHandledAtTheReadingItCameAt() async throws {
        let loop = Loop.virtual()
        let (input, send) = AsyncStream.makeStream(of: Int.self)
        let recorder = TimelineRecorder(input, on: loop)
        try await loop.advance(by: .milliseconds(250))
        send.yield(1)
        send.yield(2)
        try await loop.advance(by: .milliseconds(250))
        send.finish()
        try await loop.advance(by: .zero)
        #expect(recorder.events == ["1@250", "2@250", "|@500"])
    }

    @Test func badCallsThrowAndNameTheCall() async throws {
        let real = try Loop()
        await #expect(throws: CadenceError.notSupported) { try await real.advance(by: .seconds(1)) }
        await #expect(throws: CadenceError.notSupported) { try await real.advance(to: real.clock.now) }
        try real.close()

        let loop = Loop.virtual()
        try await loop.advance(by: .seconds(2))
        do {
            try await loop.advance(to: LoopClock.Instant(nanoseconds: 1_000_000_000))
            Issue.record("an instant the clock has passed must throw")
        } catch {
            #expect(error == .invalidArgument && error.call == "Loop.advance(mode:to:)")
            #expect(error.message.contains("must not be before the clock's reading (2000000000 ns)"))
        }
        await #expect(throws: CadenceError.invalidArgument) { try await loop.advance(by: .milliseconds(-1)) }
        do {
            try await loop.advance(to: LoopClock.Instant(nanoseconds: .max))
            Issue.record("the clock's end must throw")
        } catch {
            #expect(error == .invalidArgument && error.message.contains("before a virtual clock's end"))
        }
        await #expect(throws: CadenceError.unknownMode) { try await loop.advance(mode: RunLoopMode("none"), by: .zero) }
        #expect(loop.clock.now.nanoseconds == 2_000_000_000)  // none of them moved the clock
        try loop.close()
        await #expect(throws: CadenceError.badHandle) { try await loop.advance(by: .seconds(1)) }
    }

    @Test func advanceFromATaskOfTheLoopThrowsInsteadOfRunningUnderIt() async throws {
        let loop = Loop.virtual()
        let task = Task(executorPreference: loop) { () async -> CadenceError? in
            do throws(CadenceError) {
                try await loop.advance(by: .seconds(1))
                return nil
            } catch {
                return error
            }
        }
        let error = await withTimeout { await task.value } ?? nil
        #expect(error == .busy && error?.call == "Loop.advance(mode:by:)")
        #expect(loop.clock.now.nanoseconds == 0)
    }
}

/// `TimelineRecorder` on a loop's clock: exact stamps, and an iteration that ends with it.
@Suite struct TimelineRecorderClockTests {
    @Test func stampsAreExactMilliseconds() async throws {
        let loop = Loop.virtual()
        let recorder = TimelineRecorder<String>(clock: loop.clock)
        recorder.record("a")
        try loop.jumpClock(by: .nanoseconds(1_500_250_001))
        recorder.record("b")
        try loop.jumpClock(by: .nanoseconds(249_999))
        recorder.finish()
        #expect(recorder.events == ["a@0", "b@1500.250001", "|@1500.5"])
    }

    @Test func aThrownErrorEndsTheTimeline() async throws {
        struct Failure: Error {}
        let loop = Loop.virtual()
        let (input, send) = AsyncThrowingStream.makeStream(of: Int.self)
        let recorder = TimelineRecorder(input, on: loop)
        send.yield(7)
        try await loop.advance(by: .milliseconds(5))
        send.finish(throwing: Failure())
        try await loop.advance(by: .zero)
        #expect(recorder.events == ["7@0", "!Failure()@5"])
    }

    @Test func cancellingStopsTheIterationAndItsSleep() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let recorder = TimelineRecorder(GridTimer(interval: .seconds(1), tolerance: nil, clock: clock), on: loop)
        try await loop.advance(by: .milliseconds(2500))
        #expect(recorder.events.count == 2)
        #expect(loop.armedTimerCount == 1)
        recorder.cancel()
        #expect(loop.armedTimerCount == 0)  // the grid timer's sleep, disarmed by the cancel
        try await loop.advance(by: .seconds(5))
        #expect(recorder.events == ["1000000000 ns@1000", "2000000000 ns@2000"])  // no finish after the cancel
    }
}
