@testable import Cadence
import Testing

/// A pass that takes its due timers at once (`TimerQueues.beginPass`: the largest heap's buffer,
/// the other heaps' due entries appended, sorted, the buffer handed back at the end) must do
/// exactly what a pass that pops them one at a time does. Each test runs one workload twice: as
/// it is, where passes take all, and as a reference with many far-off timers added in every mode
/// it runs, so that fewer than half are due and every pass pops. The two fire logs must agree.
@Suite struct TakeAllPassTests {
    /// A mode registered as common, and one that is not.
    static let shared = RunLoopMode("shared"), own = RunLoopMode("own")
    static let far: Nanoseconds = 1 << 60
    static let steps = 20
    /// Far-off timers per workload timer, per mode, in a reference run: more than twice what can
    /// be armed in its passes.
    static let extras = 12

    /// One run of a workload: what it fired, as "name@date+skipped" (final ones with a "!"),
    /// pass by pass, and whether any of its passes took all.
    struct Run {
        var log: [String] = []
        var tookAll = 0
        var passes = 0
    }

    /// Arms `count` timers of every kind (both common modes and two others, with and without
    /// tolerance, one-shots and repeating ones that skip or burst, ties), cancels some, then runs
    /// passes in every mode, each fire followed by what a callback might do: cancel, reset or arm
    /// timers, register a mode, or end the pass early (as a run that ends does not, but a caller
    /// of `TimerQueues` may).
    func run(seed: UInt64, count: Int, reference: Bool) throws -> Run {
        var queues = TimerQueues()
        queues.takeAllMinimum = TimerQueues.testTakeAllMinimum
        try queues.register(Self.shared, common: true)
        try queues.register(Self.own, common: false)
        let modes = [TimerQueues.defaultIndex, TimerQueues.commonIndex,
                     try queues.index(of: Self.shared), try queues.index(of: Self.own)]
        var rng = SplitMix(seed: seed)
        var names: [TimerID: Int] = [:], ids: [Int] = [], byName: [Int: TimerID] = [:]
        func arm(_ date: Nanoseconds, mode: Int, interval: Nanoseconds, tolerance: Nanoseconds,
                 burst: Bool, name: Int?, queues: inout TimerQueues) {
            let id = queues.arm(fireDate: date, interval: interval, tolerance: tolerance,
                                missedTicks: burst ? .burst : .skip, modeIndex: mode, action: .idle)
            guard let name else { return }
            names[id] = name
            byName[name] = id
            ids.append(name)
        }
        func randomTimer(now: Nanoseconds, name: Int, queues: inout TimerQueues) {
            // Weighted towards `common`, so that the largest heap is often not the mode's own.
            let mode = modes[[0, 1, 1, 1, 2, 3][Int(rng.next() % 6)]]
            let interval: Nanoseconds = rng.next() % 3 == 0 ? 1 + rng.next() % 300 : 0
            let tolerance: Nanoseconds = rng.next() % 4 == 0 ? rng.next() % 50 : 0
            arm(now + rng.next() % 1_000, mode: mode, interval: interval, tolerance: tolerance,
                burst: rng.next() % 2 == 0, name: name, queues: &queues)
        }
        for name in 0..<count { randomTimer(now: 0, name: name, queues: &queues) }
        if reference {
            // Far off, in every heap of every pass, and many: no pass takes all.
            for mode in [TimerQueues.commonIndex, modes[3]] {
                for _ in 0..<(Self.extras * count) {
                    arm(Self.far, mode: mode, interval: 0, tolerance: 0, burst: false, name: nil, queues: &queues)
                }
            }
        }
        for name in 0..<count where rng.next() % 7 == 0 {  // stale entries among the due ones
            var action = TimerAction.idle
            _ = queues.disarm(byName[name]!, releasing: &action)
        }
        var result = Run(), nextName = count, registered = 0
        var now: Nanoseconds = 0
        for step in 0..<Self.steps {
            now += [1_200, 0, 3, 250, 40][step % 5]
            if step % 5 == 4 {  // a new burst, due at the next step
                for _ in 0..<count {
                    randomTimer(now: now, name: nextName, queues: &queues)
                    nextName += 1
                }
            }
            let mode = modes[[0, 2, 3, 0, 2, 3, 0][step % 7]]
            let pass = queues.beginPass(runningIn: mode, now: now)
            result.passes += 1
            if pass.tookAll { result.tookAll += 1 }
            var fire = TimerQueues.Fire(), fired = 0
            let stopAfter = step % 4 == 1 ? Int(rng.next() % 200) : .max
            result.log.append("pass \(step) in \(mode) at \(now)")
            while fired < stopAfter, queues.fireNext(in: pass, now: now, into: &fire) {
                fired += 1
                let name = names[fire.id] ?? -1
                result.log.append("\(name)@\(fire.fireDate)+\(fire.skipped)\(fire.isFinal ? "!" : "")")
                switch rng.next() % 12 {
                case 0, 1:  // cancel another timer (maybe one taken, not yet fired)
                    if let id = byName[ids[Int(rng.next() % UInt64(ids.count))]] {
                        var action = TimerAction.idle
                        _ = queues.disarm(id, releasing: &action)
                    }
                case 2:  // reset another to a date due now (it waits for the next pass) or later
                    if let id = byName[ids[Int(rng.next() % UInt64(ids.count))]] {
                        _ = queues.reset(id, fireDate: now - 1 + rng.next() % 3 * 100)
                    }
                case 3:  // arm one, due now or later
                    randomTimer(now: now - 500, name: nextName, queues: &queues)
                    nextName += 1
                case 4:  // register a mode (never run: it only grows the heaps)
                    if registered < 3 {
                        try queues.register(RunLoopMode("late\(registered)"), common: registered % 2 == 0)
                        registered += 1
                    }
                default: break
                }
            }
            queues.endPass()
            result.log.append("end: \(queues.count - (reference ? 2 * Self.extras * count : 0)) armed")
            for mode in modes where mode != TimerQueues.commonIndex {  // the next wake-up of each
                let wake = queues.nextWakeAndDeadline(runningIn: mode)
                result.log.append(wake.map { $0.deadline >= Self.far ? "idle" : "wake \($0)" } ?? "idle")
            }
        }
        return result
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func takingAllFiresAsPoppingDoes(seed: UInt64) throws {
        let count = 3 * TimerQueues.testTakeAllMinimum
        let taking = try run(seed: seed, count: count, reference: false)
        let popping = try run(seed: seed, count: count, reference: true)
        #expect(taking.tookAll >= 3)  // the test can fail: passes did take all
        #expect(popping.tookAll == 0)
        #expect(taking.log.count > 4 * count)
        if let first = taking.log.indices.first(where: { $0 >= popping.log.count || taking.log[$0] != popping.log[$0] }) {
            Issue.record("first difference at \(first): \(taking.log[first]) vs \(first < popping.log.count ? popping.log[first] : "none")")
        }
        #expect(taking.log.count == popping.log.count)
    }

    /// The heap that lent its buffer to the pass takes timers armed meanwhile in a new one: fewer
    /// than the lent buffer holds (it gets that back, with them) or more (it keeps the new one).
    /// Either way every timer is there after the pass, and they fire in fire-date order.
    @Test(arguments: [10, 8 * TimerQueues.testTakeAllMinimum])
    func timersArmedDuringThePassInTheHeapThatLentItsBuffer(armed: Int) {
        var queues = TimerQueues()
        queues.takeAllMinimum = TimerQueues.testTakeAllMinimum
        let due = 2 * TimerQueues.testTakeAllMinimum
        for index in 0..<due {
            _ = queues.arm(fireDate: Nanoseconds(index % 7), interval: 0, tolerance: 0, missedTicks: .skip,
                           modeIndex: TimerQueues.defaultIndex, action: .idle)
        }
        let pass = queues.beginPass(runningIn: TimerQueues.defaultIndex, now: 10)
        #expect(pass.tookAll)
        var fire = TimerQueues.Fire(), fired = 0
        var expected: [Nanoseconds] = []
        while queues.fireNext(in: pass, now: 10, into: &fire) {
            if fired == due / 2 {  // half way: the rest stay taken while these are armed
                for index in 0..<armed {
                    let date = 100 + Nanoseconds(index &* 7919 % 1_000)
                    expected.append(date)
                    _ = queues.arm(fireDate: date, interval: 0, tolerance: 0, missedTicks: .skip,
                                   modeIndex: TimerQueues.defaultIndex, action: .idle)
                }
            }
            fired += 1
        }
        queues.endPass()
        #expect(fired == due)
        #expect(queues.count == armed)
        #expect(queues.heaps[queues.heap(TimerQueues.defaultIndex, .exact)].count == armed)
        var dates: [Nanoseconds] = []
        let later = queues.beginPass(runningIn: TimerQueues.defaultIndex, now: 2_000)
        while queues.fireNext(in: later, now: 2_000, into: &fire) { dates.append(fire.fireDate) }
        queues.endPass()
        #expect(dates == expected.sorted())
        #expect(queues.count == 0)
    }
}
