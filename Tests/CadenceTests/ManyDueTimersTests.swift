@testable import Cadence
import Testing

/// A pass with many due timers takes them out of their heaps at once and sorts them
/// (`TimerQueues.beginPass`); it must fire exactly as a pass that pops them one at a time. The
/// loop tests lower the heaps' size from which a pass takes all, and run with too few timers for
/// that (popped) and with enough (taken).
@Suite struct ManyDueTimersTests {
    static let counts = [TimerQueues.testTakeAllMinimum - 1, 4 * TimerQueues.testTakeAllMinimum]

    @Test func aPassTakesItsTimersAtOnceOnlyWhenManyAndMostAreDue() {
        var queues = TimerQueues()
        #expect(queues.takeAllMinimum == TimerQueues.defaultTakeAllMinimum)
        queues.takeAllMinimum = TimerQueues.testTakeAllMinimum
        let count = 2 * TimerQueues.testTakeAllMinimum
        func arm(_ dates: Range<Int>) {
            for date in dates {
                _ = queues.arm(fireDate: Nanoseconds(date), interval: 0, tolerance: 0, missedTicks: .skip,
                               modeIndex: TimerQueues.defaultIndex, action: .idle)
            }
        }
        arm(0..<(TimerQueues.testTakeAllMinimum - 1))
        #expect(!queues.beginPass(runningIn: 0, now: Nanoseconds(count)).tookAll)  // all due, too few
        queues.endPass()
        arm((TimerQueues.testTakeAllMinimum - 1)..<count)
        #expect(!queues.beginPass(runningIn: 0, now: Nanoseconds(count / 2 - 2)).tookAll)  // under half
        queues.endPass()
        #expect(queues.beginPass(runningIn: 0, now: Nanoseconds(count / 2)).tookAll)
        queues.endPass()  // fired none: they go back to their heap
        let pass = queues.beginPass(runningIn: 0, now: Nanoseconds(count))
        #expect(pass.tookAll)
        var fire = TimerQueues.Fire()
        var dates: [Nanoseconds] = []
        while queues.fireNext(in: pass, now: Nanoseconds(count), into: &fire) { dates.append(fire.fireDate) }
        queues.endPass()
        #expect(dates == (0..<count).map { Nanoseconds($0) })
        #expect(queues.count == 0)
    }

    /// What decides is how many entries the pass's heaps hold together, due or not: its mode's
    /// and `common`'s, with tolerance and without, each a quarter of ``TimerQueues/takeAllMinimum``
    /// here. One entry short of it, a pass pops though half are due; at it, with half due (far
    /// fewer than the threshold), the pass takes them all, and fires them in fire-date order, ties
    /// in scheduling order. The threshold is read at each pass: raised, the same heaps pop. At the
    /// tests' size and at the default.
    @Test(arguments: [TimerQueues.testTakeAllMinimum, TimerQueues.defaultTakeAllMinimum])
    func thePassHeapsTogetherHoldingTheThresholdDecide(minimum: Int) {
        var queues = TimerQueues()
        queues.takeAllMinimum = minimum
        var names: [TimerID: Int] = [:]
        var due: [(date: Nanoseconds, name: Int)] = []
        func arm(_ name: Int, at date: Nanoseconds) {
            let tolerance: Nanoseconds = name % 4 < 2 ? 0 : 5  // the exact heaps, then the tolerant ones
            let mode = name % 2 == 0 ? TimerQueues.defaultIndex : TimerQueues.commonIndex
            let id = queues.arm(fireDate: date, interval: 0, tolerance: tolerance, missedTicks: .skip,
                                modeIndex: mode, action: .idle)
            names[id] = name
            if date <= 10 { due.append((date, name)) }
        }
        // Half of `minimum` due (two thirds of them tied with others), the other half less one not.
        for name in 0..<(minimum - 1) { arm(name, at: name % 2 == 0 ? 8 + Nanoseconds(name / 2 % 3) : 1_000) }
        for mode in [TimerQueues.defaultIndex, TimerQueues.commonIndex] {
            for kind in [TimerQueues.Kind.exact, .tolerant] {
                #expect(queues.heaps[queues.heap(mode, kind)].count * 3 < minimum)  // no heap alone comes near
            }
        }
        #expect(!queues.beginPass(runningIn: TimerQueues.defaultIndex, now: 10).tookAll)  // one short
        queues.endPass()
        arm(minimum - 1, at: 1_000)
        queues.takeAllMinimum = minimum + 1
        #expect(!queues.beginPass(runningIn: TimerQueues.defaultIndex, now: 10).tookAll)  // raised
        queues.endPass()
        queues.takeAllMinimum = minimum
        let pass = queues.beginPass(runningIn: TimerQueues.defaultIndex, now: 10)
        #expect(pass.tookAll)
        var fire = TimerQueues.Fire()
        var fired: [Int] = []
        while queues.fireNext(in: pass, now: 10, into: &fire) { fired.append(names[fire.id] ?? -1) }
        queues.endPass()
        #expect(due.count == minimum / 2)
        #expect(fired == due.sorted { ($0.date, $0.name) < ($1.date, $1.name) }.map(\.name))
        #expect(queues.count == minimum / 2)
    }

    /// Fire-date order across the default and common modes, with and without tolerance, and ties
    /// (40 distinct delays) in scheduling order.
    @Test(arguments: counts)
    func theyFireInFireDateOrderTiesInSchedulingOrder(count: Int) throws {
        let v = VirtualLoop()
        v.loop.queues.takeAllMinimum = TimerQueues.testTakeAllMinimum
        var rng = SplitMix(seed: UInt64(count))
        var delays: [Double] = []
        let fired = Recorder<Int>()
        for index in 0..<count {
            let delay = Double(rng.next() % 40) / 100
            delays.append(delay)
            try v.loop.schedule(after: delay, tolerance: index % 3 == 0 ? 0.001 : 0,
                                in: index % 2 == 0 ? .default : .common) { _ in fired.append(index) }
        }
        v.block(for: 1)
        try v.loop.run(for: 0)  // one pass
        #expect(fired.values == (0..<count).sorted { (delays[$0], $0) < (delays[$1], $1) })
    }

    /// A callback cancels the timer due after it, and arms one due at once: the cancelled one
    /// never fires, the new one waits for the next pass.
    @Test(arguments: counts)
    func callbacksCancelAndArmDuringThePass(count: Int) throws {
        let v = VirtualLoop()
        v.loop.queues.takeAllMinimum = TimerQueues.testTakeAllMinimum
        let timers = Recorder<ScheduledTimer>()
        let fired = Recorder<Int>()
        let armed = Shared(0)
        for position in 0..<count {
            timers.append(try v.loop.schedule(after: 0.5 + Double(position) / 1e6) { _ in
                fired.append(position)
                if position % 2 == 0 && position + 1 < count { timers.values[position + 1].cancel() }
                _ = try? v.loop.schedule(after: 0) { _ in armed.value += 1 }
            })
        }
        v.block(for: 1)
        try v.loop.run(for: 0)
        #expect(fired.values == Array(stride(from: 0, to: count, by: 2)))
        #expect(armed.value == 0)
        try v.loop.run(for: 0)
        #expect(armed.value == (count + 1) / 2)
        #expect(v.loop.armedTimerCount == 0)
    }

    /// Overdue repeating timers fire once each, on their grids, then go on from there; cancelled
    /// ones (stale heap entries) and ones not yet due stay out of the pass.
    @Test(arguments: counts)
    func repeatingCancelledAndLaterTimersInTheSamePass(count: Int) throws {
        let v = VirtualLoop()
        v.loop.queues.takeAllMinimum = TimerQueues.testTakeAllMinimum
        let ticks = Shared<[Int: [TimerTick]]>([:])
        let timers = Recorder<ScheduledTimer>()
        for index in 0..<count {
            // Phases in (0, 1) s, grids of 1 s; every fourth timer starts much later.
            let delay = index % 4 == 3 ? 20 + Double(index) / 1e4 : Double(index + 1) / Double(count + 1)
            timers.append(try v.loop.schedule(after: delay, interval: 1) { ticks.value[index, default: []].append($0) })
        }
        for index in stride(from: 0, to: count, by: 5) { timers.values[index].cancel() }
        v.block(for: 10.5)
        try v.loop.run(for: 0)
        for index in 0..<count {
            let expected = index % 5 == 0 || index % 4 == 3 ? 0 : 1
            #expect(ticks.value[index, default: []].count == expected)
            guard let tick = ticks.value[index]?.first else { continue }
            let phase = Double(index + 1) / Double(count + 1)
            #expect(tick.skipped == Int((10.5 - phase).rounded(.down)))
            #expect(abs(tick.fireDate.timeIntervalSince1970 - (phase + Double(tick.skipped))) < 1e-6)
        }
        try v.loop.run(for: 1)  // each once more, one interval later
        for index in 0..<count where index % 5 != 0 && index % 4 != 3 {
            let dates = ticks.value[index, default: []].map { $0.fireDate.timeIntervalSince1970 }
            #expect(dates.count == 2 && abs(dates[1] - dates[0] - 1) < 1e-6)
        }
        try v.loop.run(for: 10)  // to 21.5 s: the late ones fire at 20 s and 21 s and a bit
        for index in stride(from: 3, to: count, by: 4) where index % 5 != 0 {
            #expect(ticks.value[index, default: []].count == 2)
        }
    }
}
