@testable import Cadence
import Testing

/// The per-mode count of referenced armed timers follows every way a timer is armed and ends,
/// a reused slot included, so that a run until idle never scans the timers.
@Suite struct TimerQueuesReferencesTests {
    @Test func theKindCountIsTheNumberOfKinds() {
        #expect(TimerQueues.Kind.count == TimerQueues.Kind.allCases.count)
    }

    @Test func theCountFollowsArmFireDisarmReuseAndRemoveAll() throws {
        var queues = TimerQueues()
        try queues.register(RunLoopMode("other"), common: false)
        let other = try queues.index(of: RunLoopMode("other"))
        let once = queues.arm(fireDate: 100, interval: 0, tolerance: 0, missedTicks: .skip,
                              modeIndex: TimerQueues.defaultIndex, action: .idle)
        let every = queues.arm(fireDate: 50, interval: 50, tolerance: 0, missedTicks: .skip,
                               modeIndex: TimerQueues.commonIndex, action: .idle)
        let elsewhere = queues.arm(fireDate: 10, interval: 0, tolerance: 0, missedTicks: .skip,
                                   modeIndex: other, action: .idle)
        #expect(queues.referencedCount.values == [1, 1, 1])

        let unreferenced = queues.setReferenced(every, false)
        let again = queues.setReferenced(every, false)  // twice is harmless
        #expect(unreferenced && again)
        #expect(queues.referencedCount.values == [1, 0, 1] && !queues.isReferenced(every))
        // The repeating timer fires (once, skipping a tick) and stays unreferenced; the one-shot ends.
        fire(&queues, at: 100, mode: TimerQueues.defaultIndex, expecting: 2)
        #expect(queues.referencedCount.values == [0, 0, 1] && queues.isArmed(every) && !queues.isReferenced(every))
        #expect(!queues.hasReferencedTimers(runningIn: TimerQueues.defaultIndex))
        #expect(queues.hasReferencedTimers(runningIn: other))
        let ended = queues.setReferenced(once, true)
        #expect(!ended)  // it has ended

        var action = TimerAction.idle
        let disarmed = queues.disarm(elsewhere, releasing: &action)
        #expect(disarmed)
        #expect(queues.referencedCount.values == [0, 0, 0])
        // A timer in the slot the one-shot left is referenced, whatever the slot held before.
        let reused = queues.arm(fireDate: 200, interval: 0, tolerance: 0, missedTicks: .skip,
                                modeIndex: TimerQueues.defaultIndex, action: .idle)
        #expect(queues.isReferenced(reused) && queues.referencedCount.values == [1, 0, 0])
        let referenced = queues.setReferenced(every, true)
        #expect(referenced && queues.referencedCount.values == [1, 1, 0])
        #expect(queues.hasReferencedTimers(runningIn: TimerQueues.defaultIndex))
        #expect(!queues.hasReferencedTimers(runningIn: other))  // not a common mode
        try queues.register(RunLoopMode("other"), common: true)
        #expect(queues.hasReferencedTimers(runningIn: other))   // now common timers count there
        _ = queues.removeAll()
        #expect(queues.referencedCount.values == [0, 0, 0])
    }

    /// Fires one pass at `now` in `mode` and checks how many timers it fired.
    private func fire(_ queues: inout TimerQueues, at now: Nanoseconds, mode: Int, expecting count: Int) {
        var fired = 0
        var due = TimerQueues.Fire()
        while true {
            let pass = queues.beginPass(runningIn: mode, now: now)
            var firedThisPass = 0
            while queues.fireNext(in: pass, now: now, into: &due) { firedThisPass += 1 }
            queues.endPass()
            fired += firedThisPass
            if firedThisPass == 0 { break }
        }
        #expect(fired == count)
    }
}
