@testable import Cadence
import Foundation
import Synchronization
import Testing

/// The pass of the common case (`TimerQueues.fireLone`: one heap of timers without tolerance
/// holds every timer that can fire, at most one due) must do exactly what the general pass (`beginPass`, `fireNext`, `endPass`) does
/// where it applies, and decline where it does not. Each workload runs twice, once trying the
/// lone pass first (as `Loop.run` does) and once with the general pass alone; the two fire logs
/// must agree.
@Suite struct LonePassTests {
    static let steps = 400

    struct Run {
        var log: [String] = []
        var lone = 0
        var declined = 0
        /// Lone passes that fired a timer while `common`'s timers were the usual ones.
        var loneCommon = 0
    }

    /// A few timers in the default mode (a common mode, so `common` timers take part), mostly
    /// without tolerance, one-shots and repeating ones that skip or burst; passes at clock steps
    /// that leave none, one or several due; after each fire, what a callback might do: cancel,
    /// reset or arm a timer, due now or later. In phases of 40 passes, the timers are mostly the
    /// default mode's or mostly `common`'s (where the lone pass takes `common`'s heap), with a
    /// few in the other or with a tolerance (where it declines) until the phase ends.
    func run(seed: UInt64, tryingLone: Bool) -> Run {
        var queues = TimerQueues()
        var rng = SplitMix(seed: seed)
        var names: [TimerID: Int] = [:], byName: [Int: TimerID] = [:], nextName = 0
        var uncommon: [TimerID] = []  // with a tolerance or in the other mode: the lone pass declines
        var usual = TimerQueues.defaultIndex
        func arm(now: Nanoseconds, queues: inout TimerQueues) {
            let interval: Nanoseconds = rng.next() % 3 == 0 ? 100 + rng.next() % 300 : 0
            let tolerance: Nanoseconds = rng.next() % 16 == 0 ? rng.next() % 50 : 0
            let other = usual == TimerQueues.defaultIndex ? TimerQueues.commonIndex : TimerQueues.defaultIndex
            let mode = rng.next() % 16 == 0 ? other : usual
            let id = queues.arm(fireDate: now + rng.next() % 400, interval: interval, tolerance: tolerance,
                                missedTicks: rng.next() % 2 == 0 ? .burst : .skip, modeIndex: mode, action: .idle)
            if tolerance > 0 || mode != usual { uncommon.append(id) }
            names[id] = nextName
            byName[nextName] = id
            nextName += 1
        }
        func someTimer() -> TimerID? { byName[Int(rng.next() % UInt64(max(nextName, 1)))] }
        for _ in 0..<3 { arm(now: 0, queues: &queues) }
        var result = Run(), now: Nanoseconds = 0
        for step in 0..<Self.steps {
            now += [0, 1, 30, 90, 250][Int(rng.next() % 5)]
            if queues.count < 2 || queues.count < 4 && rng.next() % 6 == 0 { arm(now: now, queues: &queues) }
            if rng.next() % 8 == 0, let id = someTimer() {  // cancelled from another thread meanwhile
                var action = TimerAction.idle
                _ = queues.disarm(id, releasing: &action)
            }
            if step % 40 == 39 {  // a phase without them, of the default mode's timers or `common`'s
                let next = step / 40 % 3 == 1 ? TimerQueues.commonIndex : TimerQueues.defaultIndex
                for id in next == usual ? uncommon : Array(byName.values) {
                    var action = TimerAction.idle
                    _ = queues.disarm(id, releasing: &action)
                }
                uncommon = []
                usual = next
            }
            result.log.append("pass \(step) at \(now)")
            var fire = TimerQueues.Fire()
            func fired() {
                result.log.append("\(names[fire.id] ?? -1)@\(fire.fireDate)+\(fire.skipped)\(fire.isFinal ? "!" : "")")
                switch rng.next() % 8 {
                case 0:  // cancel a timer
                    if let id = someTimer() {
                        var action = TimerAction.idle
                        _ = queues.disarm(id, releasing: &action)
                    }
                case 1:  // reset one, due now (it waits for the next pass) or later
                    if let id = someTimer() { _ = queues.reset(id, fireDate: now - 1 + rng.next() % 3 * 100) }
                case 2:  // arm one, due now or later
                    arm(now: now - 200, queues: &queues)
                default: break
                }
            }
            if tryingLone, let found = queues.fireLone(runningIn: TimerQueues.defaultIndex, now: now, into: &fire) {
                result.lone += 1
                if found && usual == TimerQueues.commonIndex { result.loneCommon += 1 }
                if found { fired() }
                queues.endLonePass()
            } else {
                if tryingLone { result.declined += 1 }
                let pass = queues.beginPass(runningIn: TimerQueues.defaultIndex, now: now)
                while queues.fireNext(in: pass, now: now, into: &fire) { fired() }
                queues.endPass()
            }
            result.log.append("end: \(queues.count) armed, wake \(String(describing: queues.nextWakeAndDeadline(runningIn: 0)))")
        }
        return result
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func theLonePassFiresAsTheGeneralOneDoes(seed: UInt64) {
        let lone = run(seed: seed, tryingLone: true)
        let general = run(seed: seed, tryingLone: false)
        // The test can fail: both kinds of pass ran, and the lone one fired timers.
        #expect(lone.lone > Self.steps / 10)
        #expect(lone.declined > Self.steps / 10)
        #expect(lone.loneCommon > 0)
        #expect(lone.log.filter { $0.contains("@") }.count > Self.steps / 2)
        if let first = lone.log.indices.first(where: { $0 >= general.log.count || lone.log[$0] != general.log[$0] }) {
            Issue.record("first difference at \(first): \(lone.log[first]) vs \(first < general.log.count ? general.log[first] : "none")")
        }
        #expect(lone.log.count == general.log.count)
    }

    /// Two timers due when a pass begins fire in that pass, and a timer that the first one's
    /// action arms with a fire date between theirs waits for the next (libuv issue 4245): the lone
    /// pass does not take a pass with two due.
    @Test func aTimerArmedInAPassFiresAfterTheTimersDueWhenItBegan() throws {
        let loop = Loop.virtual()
        defer { try? loop.close() }
        let order = Mutex<[String]>([])
        let start = loop.now
        let armed = Mutex<[any Cancellable]>([])
        let first = try loop.schedule(after: 0.5) { _ in
            order.withLock { $0.append("first") }
            let late = try? loop.schedule(after: start.addingTimeInterval(0.7), tolerance: 0) {
                order.withLock { $0.append("armed in the pass") }
            }
            armed.withLock { $0.append(contentsOf: late.map { [$0] } ?? []) }
        }
        let second = try loop.schedule(after: 1.0) { _ in order.withLock { $0.append("second") } }
        try loop.jumpClock(by: 2)  // the thread was blocked: both are due when the run begins
        try loop.run(for: 0.001)
        #expect(order.withLock { $0 } == ["first", "second", "armed in the pass"])
        withExtendedLifetime((first, second)) {}
    }
}
