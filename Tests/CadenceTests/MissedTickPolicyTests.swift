import Cadence
import Testing

/// Skip, burst and delay (DESIGN.md §2 "Repeating timers stay on their grid"), in virtual time: a
/// 1 s timer whose first callback blocks the thread for 3.5 s.
@Suite struct MissedTickPolicyTests {
    func fires(_ policy: MissedTickPolicy) throws -> [String] {
        let loop = Loop.virtual()
        var log: [String] = []
        var blocked = false
        try loop.schedule(after: 1, interval: 1, missedTicks: policy) { tick in
            let at = loop.now.timeIntervalSince1970
            log.append("\(tick.fireDate.timeIntervalSince1970)@\(at)/\(tick.skipped)")
            if !blocked {
                blocked = true
                try? loop.advanceClock(by: 3.5)  // the callback blocks for 3.5 s
            }
        }
        try loop.run(for: 10)
        return log
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

    @Test func publishersTakeThePolicyToo() throws {
        let loop = Loop.virtual()
        var dates: [Double] = []
        let publisher = try TimerPublisher(every: 0.1, on: loop, missedTicks: .burst)
        _ = publisher.subscribe { dates.append($0.fireDate.timeIntervalSince1970) }
        _ = publisher.connect()
        try loop.advanceClock(by: 0.35)
        try loop.run(for: 0)
        try loop.run(for: 0)
        try loop.run(for: 0)
        #expect(dates.map { ($0 * 10).rounded() } == [1, 2, 3])  // one missed tick per pass

        var autoDates: [Double] = []
        let auto = publisher.autoconnect().subscribe { autoDates.append($0.fireDate.timeIntervalSince1970) }
        try loop.advanceClock(by: 0.25)
        try loop.run(for: 0)
        try loop.run(for: 0)
        #expect(autoDates.map { ($0 * 100).rounded() } == [45, 55])  // the autoconnect copy bursts too
        auto.cancel()
    }
}
