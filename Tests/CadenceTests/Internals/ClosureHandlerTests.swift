@testable import Cadence
import Testing

/// A timer keeps a Swift closure as two words and one retain of its context (ClosureHandler.swift):
/// these fail if a closure's layout or its context's life ever differs from what that assumes.
@Suite struct ClosureHandlerTests {
    /// Something a closure captures, counting the calls that saw it alive.
    final class Captured: Sendable {
        let calls = Shared(0)
    }

    @Test func aClosureIsTwoWordsAndASlotIsSmall() {
        #expect(MemoryLayout<ClosureHandler.Body>.size == 2 * MemoryLayout<UInt>.size)
        #expect(MemoryLayout<TimerAction>.size == 25)
        #expect(MemoryLayout<StoredAction>.size == 17)  // its third word kept once per loop, by tag
        #expect(MemoryLayout<TimerSlot>.stride == 40)  // with its heap entry, 56 bytes per timer
    }

    @Test func aOneShotKeepsWhatItCapturedUntilItsFireHasReturned() throws {
        let v = VirtualLoop()
        var captured: Captured? = Captured()
        weak let watched = captured
        let calls = captured!.calls
        try v.loop.schedule(after: 1) { [captured] _ in captured!.calls.value += 1 }
        captured = nil
        #expect(watched != nil)  // the timer holds it, and no copy of the closure is left
        try v.loop.run(for: 2)
        #expect(calls.value == 1 && watched == nil)
    }

    @Test func aClosureWithoutCapturesRuns() throws {
        let v = VirtualLoop()
        try v.loop.schedule(after: 1) { _ in ClosureHandlerTests.plainCalls.value += 1 }
        try v.loop.run(for: 2)
        #expect(Self.plainCalls.value == 1)
    }
    static let plainCalls = Shared(0)

    /// A repeating timer that cancels itself still holds its capture until its callback returns.
    @Test func aTimerCancellingItselfKeepsItsCaptureUntilItReturns() throws {
        let v = VirtualLoop()
        var captured: Captured? = Captured()
        weak let watched = captured
        let calls = captured!.calls
        let timer = Shared<ScheduledTimer?>(nil)
        timer.value = try v.loop.schedule(after: 1, interval: 1) { [captured] _ in
            timer.value?.cancel()
            captured!.calls.value += 1  // after its own cancel
        }
        captured = nil
        try v.loop.run(for: 3.5)
        #expect(calls.value == 1 && watched == nil)
    }

    /// A call that fails to arm lets go of the closure it was given.
    @Test func aFailedArmLetsGoOfTheClosure() throws {
        let v = VirtualLoop()
        var captured: Captured? = Captured()
        weak let watched = captured
        #expect(throws: CadenceError.self) {
            try v.loop.schedule(after: 1, in: RunLoopMode("unregistered")) { [captured] _ in
                withExtendedLifetime(captured) {}
            }
        }
        try v.loop.close()
        #expect(throws: CadenceError.badHandle) {
            try v.loop.schedule(after: 1) { [captured] _ in withExtendedLifetime(captured) {} }
        }
        captured = nil
        #expect(watched == nil)
    }
}
