@testable import Cadence
import Testing

/// Timer slots are reused; a handle names the timer it was made for, never a later one.
@Suite struct TimerSlotTests {
    /// A slot's small fields share one byte (TimerSlot.swift): each keeps its value whatever the
    /// others are set to.
    @Test func theFlagsOfASlotAreIndependent() {
        var slot = TimerSlot()
        #expect(!slot.isQueued && !slot.isArmed && slot.isReferenced && slot.handle == .none && slot.missedTicks == .skip)
        for handle in [HandleState.none, .held, .detached, .released, .transient] {
            for policy in MissedTickPolicy.allCases {
                for bits in 0..<8 {
                    slot.handle = handle
                    slot.missedTicks = policy
                    (slot.isQueued, slot.isArmed, slot.isReferenced) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0)
                    #expect(slot.handle == handle && slot.missedTicks == policy)
                    #expect(slot.isQueued == (bits & 1 != 0) && slot.isArmed == (bits & 2 != 0)
                            && slot.isReferenced == (bits & 4 != 0))
                }
            }
        }
    }

    @Test func aStaleHandleNeverReachesTheTimerThatReusedItsSlot() throws {
        let v = VirtualLoop()
        let fired = Recorder<String>()
        let keep = try v.loop.schedule(after: 1) { _ in fired.append("keep") }
        let first = try v.loop.schedule(after: 0.1) { _ in fired.append("first") }
        first.cancel()
        let second = try v.loop.schedule(after: 0.2) { _ in fired.append("second") }  // first's slot
        first.cancel()
        #expect(first.isCancelled && !second.isCancelled && first != second)
        try v.loop.run(for: 2)
        #expect(fired.values == ["second", "keep"])
        #expect(keep.isCancelled && second.isCancelled)  // fired.values one-shots are done
    }

    @Test func handlesStayStaleAfterTheTableEmptiesAndStartsAgain() throws {
        let v = VirtualLoop()
        let fired = Recorder<String>()
        let old = try v.loop.schedule(after: 0.1) { _ in fired.append("old") }
        try v.loop.run(for: 1)  // the table is empty now and starts again from slot 0
        let new = try v.loop.schedule(after: 0.1) { _ in fired.append("new") }
        old.cancel()
        #expect(old.isCancelled && !new.isCancelled)
        try v.loop.run(for: 1)
        #expect(fired.values == ["old", "new"])
    }

    @Test func aTimerArmedInASlotFreedDuringAPassWaitsForTheNextPass() throws {
        let v = VirtualLoop()
        let fired = Recorder<String>()
        let victim = Shared<ScheduledTimer?>(nil)
        try v.loop.schedule(after: 0.1) { _ in
            fired.append("a")
            victim.value?.cancel()
            _ = try? v.loop.schedule(after: 0) { _ in fired.append("c") }  // takes b's slot
        }
        victim.value = try v.loop.schedule(after: 0.1) { _ in fired.append("b") }
        v.block(for: 0.1)
        try v.loop.run(for: 0)
        #expect(fired.values == ["a"])
        try v.loop.run(for: 0)
        #expect(fired.values == ["a", "c"])
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

    /// Cancelled timers leave stale heap entries behind; they must change nothing: the rest fire at
    /// their dates, in order, with the same wake-ups as on a loop that never saw the cancelled ones.
    @Test(arguments: [1, 2, 3])
    func cancelledTimersChangeNeitherFiresNorWakeUps(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        let plan = (0..<400).map { i in
            (delay: Double(rng.next() % 2_000) / 1_000, tolerance: i % 2 == 0 ? 0 : 0.05,
             interval: i % 3 == 0 ? 0.25 : 0, keep: rng.next() % 4 == 0)
        }
        func run(_ entries: [(delay: Double, tolerance: Double, interval: Double, keep: Bool)],
                 cancelling: Bool) throws -> (fires: [Int], wakeups: UInt64) {
            let v = VirtualLoop()
            let fires = Recorder<Int>()
            var cancel: [ScheduledTimer] = [], kept: [ScheduledTimer] = []
            for (i, entry) in entries.enumerated() {
                let action: @Sendable (TimerTick) -> Void = { fires.append($0.milliseconds * 1_000 + i % 1_000) }
                let timer = entry.interval > 0
                    ? try v.loop.schedule(after: entry.delay, interval: entry.interval, tolerance: entry.tolerance, action)
                    : try v.loop.schedule(after: entry.delay, tolerance: entry.tolerance, action)
                if entry.keep { kept.append(timer) } else { cancel.append(timer) }
            }
            if cancelling { cancel.forEach { $0.cancel() } }
            try withExtendedLifetime((kept, cancel)) { try v.loop.run(for: 3) }
            return (fires.values.sorted(), v.loop.wakeups)
        }
        let withCancels = try run(plan, cancelling: true)
        // The same kept timers, with the cancelled ones replaced by nothing at all: indices must
        // match for the fire records to compare, so the kept ones keep their positions.
        let kept = plan.filter(\.keep)
        #expect(kept.count > 50)
        let reference = try run(plan.map { $0.keep ? $0 : (delay: 1e6, tolerance: 0, interval: 0, keep: true) },
                                cancelling: false)
        #expect(withCancels.fires == reference.fires)
        #expect(withCancels.wakeups == reference.wakeups)
    }

    /// Heap entries carry 32-bit scheduling sequences. A timer that has waited while 2³¹ or more
    /// other timers were armed still fires when due (it was once held back from every pass as if
    /// armed during it, and the loop spun on its overdue date), and timers armed during a pass
    /// still wait for the next one when the counter wraps within the pass.
    @Test func sequencesWrapWithoutHoldingTimersBack() throws {
        let v = VirtualLoop()
        let fired = Recorder<String>()
        try v.loop.schedule(after: 1) { _ in fired.append("old") }
        v.loop.queues.nextSequence &+= (1 << 31) + 5  // as if 2³¹ + 5 arms had happened since
        v.block(for: 2)
        try v.loop.run(for: 0)
        #expect(fired.values == ["old"])
        #expect(v.loop.armedTimerCount == 0)

        v.loop.queues.nextSequence = .max - 1  // the next few arms wrap to 0
        try v.loop.schedule(after: 0) { _ in
            fired.append("a")
            for name in ["b", "c", "d"] { _ = try? v.loop.schedule(after: 0) { _ in fired.append(name) } }
        }
        try v.loop.run(for: 0)
        #expect(fired.values == ["old", "a"])
        try v.loop.run(for: 0)
        #expect(fired.values == ["old", "a", "b", "c", "d"])
    }
}
