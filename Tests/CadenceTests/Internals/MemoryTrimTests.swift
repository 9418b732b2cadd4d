@testable import Cadence
import Testing

/// `malloc_trim(0)` trims the whole process's heap, so a growing timer table calls it only after
/// the program opts in (``Loop/trimsMemory``; FreedMemory.swift). Serialized: the setting is
/// process-wide, and the second test turns it on for a moment.
@Suite(.serialized) struct MemoryTrimTests {
    /// Grows a fresh table past FreedMemory's threshold, so that its old buffers are large.
    func growATable() {
        var queues = TimerQueues()
        for _ in 0..<(2 * FreedMemory.threshold / MemoryLayout<TimerSlot>.stride) {
            _ = queues.arm(fireDate: 10, interval: 0, tolerance: 0, missedTicks: .skip,
                           modeIndex: TimerQueues.defaultIndex, action: .closure { _ in })
        }
    }

    @Test func aGrowingTableDoesNotTrimByDefault() {
        #expect(Loop.trimsMemory == false)
        let before = Loop.memoryTrims
        growATable()
        #expect(Loop.memoryTrims == before)
    }

    @Test func aGrowingTableTrimsOnceTheProgramOptsIn() {
        let before = Loop.memoryTrims
        Loop.trimsMemory = true
        defer { Loop.trimsMemory = false }
        #expect(Loop.trimsMemory)
        growATable()
        #expect(Loop.memoryTrims > before)
    }
}
