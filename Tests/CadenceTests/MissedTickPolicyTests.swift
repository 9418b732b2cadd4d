import Cadence
import Testing

/// Skip, burst and delay (DESIGN.md §2 "Repeating timers stay on their grid"), in virtual time: a
/// 1 s timer whose first callback blocks the thread for 3.5 s.
@Suite struct MissedTickPolicyTests {
    func fires(_ policy: MissedTickPolicy) throws -> [String] {
        let loop = Loop.virtual()
        let log = Recorder<String>()
        let blocked = Shared(false)
        try loop.schedule(after: 1, interval: 1, missedTicks: policy) { tick in
            let at = loop.now.timeIntervalSince1970
            log.append("\(tick.fireDate.timeIntervalSince1970)@\(at)/\(tick.skipped)")
            if !blocked.value {
                blocked.value = true
                try? loop.advanceClock(by: 3.5)  // the callback blocks for 3.5 s
            }
        }
        try loop.run(for: 10)
        return log.values
    }

    @Test func skipFiresOnceLateThenResumesTheGrid() throws {
        #expect(try fires(.skip) == [
            "1.0@1.0/0", "4.0@4.5/2", "5.0@5.0/0", "6.0@6.0/0", "7.0@7.0/0", "8.0@8.0/0", "9.0@9.0/0",
            "10.0@10.0/0",
        ])
    }

    @Test func burstGivesTheMissedTicksBackToBack() throws {
        #expect(try fires(.burst) == [
            "1.0@1.0/0", "2.0@4.5/0", "3.0@4.5/0", "4.0@4.5/0", "5.0@5.0/0", "6.0@6.0/0", "7.0@7.0/0",
            "8.0@8.0/0", "9.0@9.0/0", "10.0@10.0/0",
        ])
    }

    @Test func delayRestartsTheGridFromTheLateFire() throws {
        #expect(try fires(.delay) == [
            "1.0@1.0/0", "2.0@4.5/0", "5.5@5.5/0", "6.5@6.5/0", "7.5@7.5/0", "8.5@8.5/0", "9.5@9.5/0",
        ])
    }

    /// A 50 ms timer whose loop is blocked until `blockedUntil` ms (lateness below, at and above
    /// one interval), then run to 250 ms: each fire as "fire date@clock/skipped", in ms.
    func timeline(_ policy: MissedTickPolicy, blockedUntil: Int, tolerance: Double = 0) throws -> [String] {
        let v = VirtualLoop()
        let log = Recorder<String>()
        try v.loop.schedule(after: 0.05, interval: 0.05, tolerance: tolerance, missedTicks: policy) { tick in
            log.append("\(tick.milliseconds)@\(v.milliseconds)/\(tick.skipped)")
        }
        v.block(for: Double(blockedUntil) / 1000)
        try v.loop.run(for: Double(250 - blockedUntil) / 1000)
        return log.values
    }

    @Test func skipAfterLatenessBelowAtAndAboveOneInterval() throws {
        #expect(try timeline(.skip, blockedUntil: 70) == ["50@70/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0"])
        #expect(try timeline(.skip, blockedUntil: 100) == ["100@100/1", "150@150/0", "200@200/0", "250@250/0"])
        #expect(try timeline(.skip, blockedUntil: 130) == ["100@130/1", "150@150/0", "200@200/0", "250@250/0"])
    }

    @Test func burstAfterLatenessBelowAtAndAboveOneInterval() throws {
        #expect(try timeline(.burst, blockedUntil: 70) == ["50@70/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0"])
        #expect(try timeline(.burst, blockedUntil: 100)
            == ["50@100/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0"])
        #expect(try timeline(.burst, blockedUntil: 130)
            == ["50@130/0", "100@130/0", "150@150/0", "200@200/0", "250@250/0"])
    }

    /// Delay restarts the grid one interval after a late fire, however late (the 70 ms case kept
    /// its grid before: 70, 100, 150); a fire within the tolerance window keeps the grid.
    @Test func delayAfterLatenessBelowAtAndAboveOneInterval() throws {
        #expect(try timeline(.delay, blockedUntil: 70) == ["50@70/0", "120@120/0", "170@170/0", "220@220/0"])
        #expect(try timeline(.delay, blockedUntil: 100) == ["50@100/0", "150@150/0", "200@200/0", "250@250/0"])
        #expect(try timeline(.delay, blockedUntil: 130) == ["50@130/0", "180@180/0", "230@230/0"])
        #expect(try timeline(.delay, blockedUntil: 70, tolerance: 0.03)
            == ["50@70/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0"])
        // A tolerance wider than the interval does not keep a grid whose next point has passed.
        #expect(try timeline(.delay, blockedUntil: 130, tolerance: 0.2) == ["50@130/0", "180@180/0", "230@230/0"])
        #expect(try timeline(.delay, blockedUntil: 53) == ["50@53/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0"])
    }

    @Test func publishersTakeThePolicyToo() throws {
        let loop = Loop.virtual()
        let dates = Recorder<Double>()
        let publisher = try TimerPublisher(every: 0.1, on: loop, missedTicks: .burst)
        _ = publisher.subscribe { dates.append($0.fireDate.timeIntervalSince1970) }
        _ = publisher.connect()
        try loop.advanceClock(by: 0.35)
        try loop.run(for: 0)
        try loop.run(for: 0)
        try loop.run(for: 0)
        #expect(dates.values.map { ($0 * 10).rounded() } == [1, 2, 3])  // one missed tick per pass

        let autoDates = Recorder<Double>()
        let auto = publisher.autoconnect().subscribe { autoDates.append($0.fireDate.timeIntervalSince1970) }
        try loop.advanceClock(by: 0.25)
        try loop.run(for: 0)
        try loop.run(for: 0)
        #expect(autoDates.values.map { ($0 * 100).rounded() } == [45, 55])  // the autoconnect copy bursts too
        auto.cancel()
    }
}
