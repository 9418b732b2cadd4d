import Cadence
import Synchronization
import Testing

/// Async code on a virtual loop, run by the loop as its task executor: `run(for:)` resumes the
/// tasks sleeping on the loop's clock in fire-date order and moves the clock on only once what it
/// resumed has finished or sleeps again. No `Task.yield`, no wall-clock waits.
@Suite struct VirtualLoopTaskTests {
    /// A task on the loop that sleeps 1 s and works, `iterations` times; returns its count at the end.
    func sleepAndWork(iterations: Int) async throws -> (count: Int, virtualSeconds: Double) {
        let loop = Loop.virtual()
        let clock = loop.clock
        let count = Locked(0)
        let task = Task(executorPreference: loop) {
            for _ in 0..<iterations {
                try await clock.sleep(for: .seconds(1))
                count.withLock { $0 += 1 }  // the work
            }
        }
        try loop.run(for: Double(iterations))
        try await task.value  // finished already: the loop ran its last job
        return (count.withLock { $0 }, loop.now.timeIntervalSince1970)
    }

    @Test func aThousandSleepsReachExactlyAThousandIterationsEveryRun() async throws {
        let wall = ContinuousClock()
        for _ in 0..<100 {
            let start = wall.now
            let (count, virtualSeconds) = try await sleepAndWork(iterations: 1_000)
            #expect(count == 1_000 && virtualSeconds == 1_000)
            #expect(start.duration(to: wall.now) < .seconds(1))
        }
    }

    @Test func theClockStopsWhereTheRunEndsAndTheTaskGoesOnFromThere() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let count = Locked(0)
        let task = Task(executorPreference: loop) {
            for _ in 0..<10 {
                try await clock.sleep(for: .seconds(1))
                count.withLock { $0 += 1 }
            }
        }
        try loop.run(for: 3.5)
        #expect(count.withLock { $0 } == 3)
        try loop.run(for: 0.5)
        #expect(count.withLock { $0 } == 4)  // the sleep due at 4 s ended in the run that reached 4 s
        try loop.run(for: 100)
        try await task.value
        #expect(count.withLock { $0 } == 10)
        #expect(loop.armedTimerCount == 0)
    }

    /// What the fire dates imply for tasks sleeping `period` seconds in a loop, until `end`:
    /// ordered by fire date, ties by when the sleep began (the loop fires ties in the order they
    /// were scheduled).
    func expectedInterleaving(_ periods: [(name: String, period: Int)], until end: Int) -> [String] {
        var events: [(at: Int, armedAt: Int, name: String)] = []
        for (name, period) in periods {
            for at in stride(from: period, through: end, by: period) { events.append((at, at - period, name)) }
        }
        events.sort { ($0.at, $0.armedAt) < ($1.at, $1.armedAt) }
        return events.map { "\($0.name)@\($0.at)" }
    }

    @Test func twoTasksOfDifferentPeriodsInterleaveAsTheirFireDatesSay() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let log = Locked<[String]>([])
        func worker(_ name: String, every period: Int) -> Task<Void, any Error> {
            Task(executorPreference: loop) {
                while true {
                    try await clock.sleep(for: .seconds(period))
                    let seconds = clock.now.nanoseconds / 1_000_000_000
                    log.withLock { $0.append("\(name)@\(seconds)") }
                }
            }
        }
        let fast = worker("a", every: 3)
        let slow = worker("b", every: 5)
        try loop.run(for: 60)
        let expected = expectedInterleaving([("a", 3), ("b", 5)], until: 60)
        #expect(log.withLock { $0 } == expected)
        #expect(expected.contains("b@15") && expected.firstIndex(of: "b@15")! < expected.firstIndex(of: "a@15")!)
        fast.cancel()
        slow.cancel()
        #expect(loop.armedTimerCount == 0)  // both sleeps disarmed by the cancels
        let fastResult = await fast.result  // ended on the idle loop at once, with no run
        #expect(throws: CancellationError.self) { try fastResult.get() }
    }

    @Test func childTasksAndActorsOnTheLoopRunBeforeTheClockMoves() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let counter = LoopCounter(loop: loop)
        let log = Locked<[String]>([])
        let task = Task(executorPreference: loop) {
            for round in 1...3 {
                try await clock.sleep(for: .seconds(2))
                // Child tasks inherit the preference; the actor runs on the loop too.
                let sum = await withTaskGroup(of: Int.self) { group in
                    for value in 1...4 { group.addTask { await counter.add(value) } }
                    return await group.reduce(0, +)
                }
                log.withLock { $0.append("\(round)@\(clock.now.nanoseconds / 1_000_000_000): \(sum)") }
            }
            return await counter.total
        }
        try loop.run(for: 2)
        #expect(log.withLock { $0 } == ["1@2: 10"])  // the whole round ran at 2 s
        try loop.run(for: 10)
        #expect(log.withLock { $0 } == ["1@2: 10", "2@4: 10", "3@6: 10"])
        #expect(try await task.value == 30)
        #expect(await counter.total == 30)  // a call from outside, run at once by the idle loop
    }

    @Test func aSleepCoalescesWithTheLoopsTimers() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let log = Locked<[String]>([])
        try loop.schedule(after: 1.3) { _ in log.withLock { $0.append("timer@\(clock.now.nanoseconds / 1_000_000)") } }
        let task = Task(executorPreference: loop) {
            try await clock.sleep(for: .seconds(1), tolerance: .milliseconds(500))
            log.withLock { $0.append("sleep@\(clock.now.nanoseconds / 1_000_000)") }
        }
        try loop.run(for: 2)
        try await task.value
        // One wake-up at 1.3 s serves both: the sleep's window [1 s, 1.5 s] holds the timer's date.
        #expect(log.withLock { $0 } == ["timer@1300", "sleep@1300"])
        #expect(loop.wakeups == 1)
    }

    @Test func aDeadlineThatHasPassedEndsOnTheNextPassWithoutMovingTheClock() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        try loop.jumpClock(by: 5)
        let task = Task(executorPreference: loop) { () async throws -> UInt64 in
            try await clock.sleep(until: clock.now - .seconds(2))
            return clock.now.nanoseconds
        }
        try loop.run(for: 0)
        #expect(try await task.value == 5_000_000_000)
    }

    @Test func aTimerCallbackCanAssumeTheIsolationOfAnActorOnTheLoop() throws {
        let loop = Loop.virtual()
        let counter = LoopCounter(loop: loop)
        let seen = Locked(-1)
        try loop.schedule(after: 1) { _ in
            let total = counter.assumeIsolated { counter in counter.addNow(5) }
            seen.withLock { $0 = total }
        }
        try loop.run(for: 1)
        #expect(seen.withLock { $0 } == 5)
        #expect(loop.isIsolatingCurrentContext() == false)  // not on a thread running the loop
    }
}

/// An actor whose executor is the loop.
actor LoopCounter {
    private let loop: Loop
    private(set) var total = 0

    init(loop: Loop) { self.loop = loop }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func add(_ value: Int) -> Int {
        total += value
        return value
    }

    func addNow(_ value: Int) -> Int {
        total += value
        return total
    }
}
