import Cadence
import Testing

/// Ties (DESIGN.md §2 "Callbacks"): timers due at the same fire date fire in the order they were
/// scheduled, on every tick of a repeating timer, whatever order their re-arms came in. A 0.3 s
/// and a 0.5 s timer, scheduled in that order at 0, meet at 1.5 s, where the 0.5 s one was
/// re-armed last (at 1.0 s, after the 0.3 s one's 1.2 s).
@Suite struct TieOrderTests {
    @Test func repeatingScheduledTimersKeepTheirPlace() throws {
        for (first, second) in [(0.3, 0.5), (0.5, 0.3)] {
            let v = VirtualLoop()
            let log = Recorder<String>()
            try v.loop.schedule(after: first, interval: first) { log.append("\(first)@\($0.milliseconds)") }
            try v.loop.schedule(after: second, interval: second) { log.append("\(second)@\($0.milliseconds)") }
            try v.loop.run(for: 1.5)
            #expect(log.values.filter { $0.hasSuffix("@1500") } == ["\(first)@1500", "\(second)@1500"])
        }
    }

    @Test func publishersAndAutoconnectKeepTheirPlace() throws {
        let v = VirtualLoop()
        let log = Recorder<String>()
        let fast = try TimerPublisher(every: 0.3, on: v.loop)
        let slow = try TimerPublisher(every: 0.5, on: v.loop)
        let fastSubscription = fast.subscribe { log.append("0.3@\($0.milliseconds)") }
        let slowSubscription = slow.subscribe { log.append("0.5@\($0.milliseconds)") }
        let connections = [fast.connect(), slow.connect()]
        let autoFast = try TimerPublisher(every: 0.3, on: v.loop).autoconnect()
        let autoSlow = try TimerPublisher(every: 0.5, on: v.loop).autoconnect()
        let autoSubscriptions = [autoFast.subscribe { log.append("auto 0.3@\($0.milliseconds)") },
                                 autoSlow.subscribe { log.append("auto 0.5@\($0.milliseconds)") }]
        try v.loop.run(for: 1.5)
        #expect(log.values.filter { $0.hasSuffix("@1500") }
            == ["0.3@1500", "0.5@1500", "auto 0.3@1500", "auto 0.5@1500"])
        connections.forEach { $0.cancel() }
        (autoSubscriptions + [fastSubscription, slowSubscription]).forEach { $0.cancel() }
    }

    /// With enough timers due at once, the pass takes them all and sorts them (`FireOrder`): the
    /// same order.
    @Test func manyTimersTakenAtOnceKeepTheirPlace() throws {
        let v = VirtualLoop()
        let order = Recorder<Int>()
        for index in 0..<400 {
            let interval = index % 2 == 0 ? 0.3 : 0.5
            try v.loop.schedule(after: interval, interval: interval) { tick in
                if tick.milliseconds == 1500 { order.append(index) }
            }
        }
        try v.loop.run(for: 1.5)
        #expect(order.values == Array(0..<400))
    }

    /// A reset timer goes after the timers already due at its new fire date (libuv's
    /// `uv_timer_again`, Node's `refresh()`), as if scheduled at the reset.
    @Test func aResetTimerGoesAfterTheOthersDueThen() throws {
        let v = VirtualLoop()
        let log = Recorder<String>()
        let a = try v.loop.schedule(after: 1) { _ in log.append("a") }
        try v.loop.schedule(after: 1) { _ in log.append("b") }
        try v.loop.schedule(after: 0.5, interval: 0.5) { _ in log.append("r") }
        try a.reset(after: 1)
        try v.loop.run(for: 1)
        #expect(log.values == ["r", "b", "r", "a"])  // r was scheduled before the reset
    }
}
