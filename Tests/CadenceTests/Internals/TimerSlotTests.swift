@testable import Cadence
import Testing

/// Timer slots are reused; a handle names the timer it was made for, never a later one.
@Suite struct TimerSlotTests {
    @Test func aStaleHandleNeverReachesTheTimerThatReusedItsSlot() throws {
        let v = VirtualLoop()
        var fired: [String] = []
        let keep = try v.loop.schedule(after: 1) { _ in fired.append("keep") }
        let first = try v.loop.schedule(after: 0.1) { _ in fired.append("first") }
        first.cancel()
        let second = try v.loop.schedule(after: 0.2) { _ in fired.append("second") }  // first's slot
        first.cancel()
        #expect(first.isCancelled && !second.isCancelled && first != second)
        try v.loop.run(for: 2)
        #expect(fired == ["second", "keep"])
        #expect(keep.isCancelled && second.isCancelled)  // fired one-shots are done
    }

    @Test func handlesStayStaleAfterTheTableEmptiesAndStartsAgain() throws {
        let v = VirtualLoop()
        var fired: [String] = []
        let old = try v.loop.schedule(after: 0.1) { _ in fired.append("old") }
        try v.loop.run(for: 1)  // the table is empty now and starts again from slot 0
        let new = try v.loop.schedule(after: 0.1) { _ in fired.append("new") }
        old.cancel()
        #expect(old.isCancelled && !new.isCancelled)
        try v.loop.run(for: 1)
        #expect(fired == ["old", "new"])
    }

    @Test func aTimerArmedInASlotFreedDuringAPassWaitsForTheNextPass() throws {
        let v = VirtualLoop()
        var fired: [String] = []
        var victim: ScheduledTimer?
        try v.loop.schedule(after: 0.1) { _ in
            fired.append("a")
            victim?.cancel()
            _ = try? v.loop.schedule(after: 0) { _ in fired.append("c") }  // takes b's slot
        }
        victim = try v.loop.schedule(after: 0.1) { _ in fired.append("b") }
        v.block(for: 0.1)
        try v.loop.run(for: 0)
        #expect(fired == ["a"])
        try v.loop.run(for: 0)
        #expect(fired == ["a", "c"])
    }

    @Test func closeEndsTimersWhateverTheirSlots() throws {
        let v = VirtualLoop()
        var timers: [ScheduledTimer] = []
        for i in 0..<5 { timers.append(try v.loop.schedule(after: Double(i + 1), interval: 1) { _ in }) }
        timers[1].cancel()
        timers[3].cancel()
        try v.loop.close()
        #expect(timers.allSatisfy { $0.isCancelled })
        #expect(v.loop.armedTimerCount == 0)
    }
}
