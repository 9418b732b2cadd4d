@testable import Cadence
import Testing

/// Run loop modes (Cadence.docc/Semantics.md, "Modes"): what the Swift face refuses. How timers behave in
/// modes and common modes is proven by the scenario corpus (Tests/Scenarios/modes.jsonl).
@Suite struct RunLoopModeTests {
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
