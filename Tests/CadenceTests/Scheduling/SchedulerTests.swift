import Cadence
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Schedulers and ticks (the `Scheduler` protocol and `ticks(every:)`).
@Suite struct SchedulerTests {
    @Test func virtualTicksLandOnTheSecondAndLeaveWithTheSubscriber() throws {
        let clock = VirtualScheduler()
        let ticks = try TimelineRecorder(clock.ticks(every: 1), scheduler: clock)
        try clock.advance(by: 3.5)
        #expect(ticks.events == ["0@1000", "1@2000", "2@3000"])
        #expect(clock.armedTimerCount == 1)
        ticks.cancel()
        #expect(clock.armedTimerCount == 0)
    }

    @Test func eachSubscriberGetsItsOwnTimer() throws {
        let clock = VirtualScheduler()
        let ticks = clock.ticks(every: 1)
        let first = try TimelineRecorder(ticks, scheduler: clock)
        try clock.advance(by: 1.5)
        let second = try TimelineRecorder(ticks, scheduler: clock)
        #expect(clock.armedTimerCount == 2)
        try clock.advance(by: 1.5)
        #expect(first.events == ["0@1000", "1@2000", "2@3000"])
        #expect(second.events == ["0@2500"])
        first.cancel()
        second.cancel()
        #expect(clock.armedTimerCount == 0)
    }

    @Test func advanceToAndRun() throws {
        let clock = VirtualScheduler()
        let log = Mutex<[Int]>([])
        let start = clock.now
        _ = try clock.schedule(after: start.addingTimeInterval(2), tolerance: 0) { log.withLock { $0.append(2) } }
        _ = try clock.schedule(after: start.addingTimeInterval(1), tolerance: 0) { log.withLock { $0.append(1) } }
        try clock.advance(to: start.addingTimeInterval(1))
        #expect(log.withLock { $0 } == [1])
        try clock.run()
        #expect(log.withLock { $0 } == [1, 2])
        #expect(clock.now == start.addingTimeInterval(2))
        let forever = try clock.schedule(after: clock.now, interval: 1, tolerance: 0) {}
        #expect(throws: CadenceError.busy) { try clock.run(limit: 10) }
        forever.cancel()
        try clock.run()
    }

    @Test func badTicksThrowWhenSubscribing() {
        let clock = VirtualScheduler()
        #expect(throws: CadenceError.invalidArgument) { try clock.ticks(every: 0).subscribe { _ in } }
        #expect(throws: CadenceError.invalidArgument) { try clock.ticks(every: .nan).subscribe { _ in } }
        #expect(throws: CadenceError.invalidArgument) { try clock.ticks(every: 1, tolerance: -1).subscribe { _ in } }
        #expect(clock.armedTimerCount == 0)
    }

    @Test func datesThatAreNotFiniteAndANegativeLimitThrow() throws {
        let bad = [Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: .infinity),
                   Date(timeIntervalSince1970: -.infinity)]
        let virtual = VirtualScheduler()
        let loop = Loop.virtual()
        let queue = DispatchQueue(label: "bad-dates")
        let ran = Mutex(0)
        for date in bad {
            for scheduler in [virtual, loop, queue] as [any Scheduler] {
                #expect(throws: CadenceError.invalidArgument) {
                    _ = try scheduler.schedule(after: date, tolerance: 0) { ran.withLock { $0 += 1 } }
                }
                #expect(throws: CadenceError.invalidArgument) {
                    _ = try scheduler.schedule(after: date, interval: 1, tolerance: 0) { ran.withLock { $0 += 1 } }
                }
            }
            #expect(throws: CadenceError.invalidArgument) { try virtual.advance(to: date) }
        }
        #expect(throws: CadenceError.invalidArgument) { try virtual.run(limit: -1) }
        #expect(virtual.now == Date(timeIntervalSince1970: 0))
        #expect(virtual.armedTimerCount == 0)
        #expect(loop.armedTimerCount == 0)
        try loop.run(for: 10)
        queue.sync {}  // a dispatch source armed at once would have run by now
        #expect(ran.withLock { $0 } == 0)
        try virtual.run(limit: 0)  // nothing pending: returns
    }

    @Test func loopIsASchedulerInTheCommonMode() throws {
        let loop = Loop.virtual()
        let tracking = RunLoopMode("tracking")
        try loop.addCommonMode(tracking)
        let recorder = try TimelineRecorder(loop.ticks(every: 0.5), scheduler: loop)
        try loop.run(mode: tracking, for: 1.2)
        #expect(recorder.events == ["0@500", "1@1000"])
        recorder.cancel()
        #expect(loop.armedTimerCount == 0)
    }
}

/// Ticks on a serial dispatch queue that nobody runs a loop on (the seed article's background
/// queue case), on the real clock.
@Suite(.serialized) struct DispatchSchedulerTests {
    @Test func ticksOnASerialQueue() throws {
        let queue = DispatchQueue(label: "polling")
        let interval = 0.05
        let ticks = Recorder<(value: Int, ran: Double)>()  // each tick's value and when it ran
        let subscribed = queue.now.timeIntervalSince1970
        let handle = try queue.ticks(every: interval).sink { value in
            ticks.append((value, queue.now.timeIntervalSince1970))
        }
        try #require(waitUntil { ticks.count >= 5 })
        handle.cancel()
        let atCancel = queue.sync { ticks.count }
        // A one-shot on the same queue due three intervals later: once it has run, a tick the
        // cancel failed to stop would have run before it.
        let sentinel = Recorder<Bool>()
        _ = try queue.schedule(after: queue.now.addingTimeInterval(3 * interval), tolerance: 0) {
            sentinel.append(true)
        }
        #expect(waitUntil { !sentinel.isEmpty })
        #expect(ticks.count == atCancel)  // no tick after cancel returned and the queue drained
        let seen = ticks.values
        #expect(seen.map(\.value) == Array(0..<seen.count))  // 0, 1, 2, ... in order
        // Never early on the grid: the n-th fire (missed ticks merged) comes no sooner than the
        // grid point n + 1 intervals after subscribing.
        for (number, tick) in seen.enumerated() {
            #expect(tick.ran >= subscribed + Double(number + 1) * interval - 1e-6)
        }
    }

    @Test func oneShotOnAQueueFiresOnceAndNeverEarly() throws {
        let queue = DispatchQueue(label: "one-shot")
        let events = Recorder<String>()
        let firedAt = Recorder<Double>()
        let due = queue.now.addingTimeInterval(0.05)
        _ = try queue.schedule(after: due, tolerance: 0) {
            firedAt.append(queue.now.timeIntervalSince(due))
            events.append("one-shot")
        }
        // A later one-shot on the same serial queue: the first runs before it, and once it has
        // run, a second fire of the first (due before it) would have run too.
        _ = try queue.schedule(after: due.addingTimeInterval(0.05), tolerance: 0) { events.append("later") }
        #expect(waitUntil { events.values.contains("later") })
        #expect(events.values == ["one-shot", "later"])
        #expect(firedAt.count == 1)
        #expect(firedAt.values.allSatisfy { $0 >= -1e-6 })  // never early
    }
}
