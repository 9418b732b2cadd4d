@testable import Cadence
import Testing

/// Run loop modes and common modes (DESIGN.md §2 "Modes"), in virtual time.
@Suite struct RunLoopModeTests {
    @Test func defaultTimerWaitsWhileLoopRunsInAnotherCommonMode() throws {
        let v = VirtualLoop()
        let tracking = RunLoopMode("tracking")
        try v.loop.addCommonMode(tracking)
        let defaultTicks = Shared(0), commonTicks = Shared(0)
        let d = try TimerPublisher(every: 0.05, on: v.loop, in: .default).autoconnect().sink { _ in defaultTicks.value += 1 }
        let c = try TimerPublisher(every: 0.05, on: v.loop, in: .common).autoconnect().sink { _ in commonTicks.value += 1 }
        try v.loop.run(mode: tracking, for: 0.5)
        #expect(defaultTicks.value == 0)
        #expect(commonTicks.value == 10)
        // Back in the default mode the waiting timer fires once, not in a burst.
        try v.loop.run(mode: .default, for: 0.01)
        #expect(defaultTicks.value == 1)
        withExtendedLifetime((d, c)) {}
    }

    @Test func overdueTimerInAPausedModeFiresOnceWithSkippedCount() throws {
        let v = VirtualLoop()
        try v.loop.addMode(RunLoopMode("modal"))
        let ticks = Recorder<TimerTick>()
        let publisher = try TimerPublisher(every: 0.1, on: v.loop, in: .default)
        _ = publisher.subscribe { ticks.append($0) }
        _ = publisher.connect()
        try v.loop.run(mode: RunLoopMode("modal"), for: 0.55)
        #expect(ticks.isEmpty)
        try v.loop.run(mode: .default, for: 0.1)
        #expect(ticks.values.map(\.milliseconds) == [500, 600])
        #expect(ticks.values.map(\.skipped) == [4, 0])
    }

    @Test func addingACommonModeLaterCoversExistingCommonTimers() throws {
        let v = VirtualLoop()
        let mode = RunLoopMode("later")
        try v.loop.addMode(mode)
        let fired = Recorder<TimerTick>()
        let publisher = try TimerPublisher(every: 0.1, on: v.loop, in: .common).autoconnect()
        let handle = publisher.subscribe { fired.append($0) }
        try v.loop.run(mode: mode, for: 0.35)
        #expect(fired.isEmpty)
        try v.loop.addCommonMode(mode)
        try v.loop.run(mode: mode, for: 0.2)
        // The overdue ticks at 0.1-0.3 collapse into one fire reporting 0.3, then the grid resumes.
        #expect(fired.values.map(\.milliseconds) == [300, 400, 500])
        #expect(fired.values.map(\.skipped) == [2, 0, 0])
        handle.cancel()
    }

    @Test func modesCompareByValue() throws {
        let v = VirtualLoop()
        try v.loop.addMode(RunLoopMode("x"))
        let fired = Shared(0)
        let handle = try TimerPublisher(every: 0.1, on: v.loop, in: RunLoopMode("x")).autoconnect().sink { _ in fired.value += 1 }
        try v.loop.run(mode: RunLoopMode(String("x")), for: 0.3)
        #expect(fired.value == 3)
        withExtendedLifetime(handle) {}
    }

    @Test func badModes() throws {
        let v = VirtualLoop()
        #expect(throws: CadenceError.unknownMode) { try v.loop.run(mode: RunLoopMode("nope"), for: 0.1) }
        #expect(throws: CadenceError.invalidArgument) { try v.loop.run(mode: .common, for: 0.1) }
        #expect(throws: CadenceError.invalidArgument) { try v.loop.addMode(RunLoopMode("")) }
        #expect(throws: CadenceError.invalidArgument) { try v.loop.addMode(.common) }
        #expect(throws: CadenceError.invalidArgument) { try v.loop.addMode(RunLoopMode("tab\there")) }
        #expect(throws: CadenceError.invalidArgument) { try v.loop.addMode(RunLoopMode(String(repeating: "m", count: 256))) }
        #expect(throws: CadenceError.unknownMode) { try TimerPublisher(every: 1, on: v.loop, in: RunLoopMode("nope")) }
        try v.loop.addMode(.default)  // registering an existing mode is harmless
    }
}

@Suite struct RunLoopModeNameTests {
    @Test func namesCompareByBytesNotByCanonicalEquivalence() throws {
        #expect(RunLoopMode("caf\u{E9}") != RunLoopMode("cafe\u{301}"))
        #expect(RunLoopMode("\u{212A}") != RunLoopMode("K"))
        let loop = Loop.virtual()
        try loop.addMode(RunLoopMode("caf\u{E9}"))
        #expect(throws: CadenceError.unknownMode) { try loop.run(mode: RunLoopMode("cafe\u{301}"), for: 0) }
        try loop.run(mode: RunLoopMode("caf\u{E9}"), for: 0)
    }
}
