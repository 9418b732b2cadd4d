@testable import Cadence
import Testing

/// Tolerance used to save wake-ups (Cadence.docc/Semantics.md, "Tolerance and wake-ups"), in virtual time.
@Suite struct CoalescingTests {
    /// 1000 repeating 1 s timers at random phases, run for 10 s.
    struct Run {
        var wakeups: UInt64 = 0
        var fires = 0
        var lateness: [Double] = []
        var fireDates: [Double] = []
    }

    func run(tolerance: Double, seed: UInt64) throws -> Run {
        var rng = SplitMix(seed: seed)
        let loop = Loop.virtual()
        let result = Shared(Run())
        var timers: [ScheduledTimer] = []  // kept: a repeating timer given up stops
        for _ in 0..<1000 {
            let phase = Double(rng.next() % 1_000_000) / 1_000_000
            timers.append(try loop.schedule(after: phase, interval: 1, tolerance: tolerance) { tick in
                let fireDate = tick.fireDate.timeIntervalSince1970
                let lateness = loop.now.timeIntervalSince1970 - fireDate
                result.update { run in
                    run.fires += 1
                    run.fireDates.append(fireDate)
                    run.lateness.append(lateness)
                }
            })
        }
        try loop.run(for: 10)
        timers.forEach { $0.cancel() }
        result.update { $0.wakeups = loop.wakeups }
        return result.value
    }

    /// The fewest points that stab every window [F, F + tolerance]: sort by the window's end and
    /// stab at the end of the first window not yet stabbed (the interval-stabbing greedy).
    func optimalWakeUps(_ fireDates: [Double], tolerance: Double) -> Int {
        var points = 0
        var last = -Double.infinity
        for start in fireDates.sorted() where start > last {
            // Sorted by start equals sorted by end when every window has the same length.
            last = start + tolerance
            points += 1
        }
        return points
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func tenPercentToleranceWakesNearTheOptimum(seed: UInt64) throws {
        let coalesced = try run(tolerance: 0.1, seed: seed)
        #expect(coalesced.fires == 10_000)
        #expect(coalesced.lateness.allSatisfy { $0 >= 0 && $0 <= 0.1 + 1e-9 })  // in the window, never early
        let optimum = optimalWakeUps(coalesced.fireDates, tolerance: 0.1)
        #expect(Double(coalesced.wakeups) <= 1.1 * Double(optimum))
        // The last group may fire in the pass that ends the run, which is not a timer wake-up.
        #expect(coalesced.wakeups + 1 >= UInt64(optimum))
        #expect((90...110).contains(optimum))  // about 10 per second

        let exact = try run(tolerance: 0, seed: seed)
        #expect(exact.fires == 10_000)
        #expect(exact.lateness.allSatisfy { $0 == 0 })
        #expect(exact.wakeups == UInt64(Set(exact.fireDates).count))  // one per distinct fire date
        #expect(exact.wakeups > 9_900)
    }
}
