@testable import Cadence
import FoundationEssentials
import Glibc
import Testing

/// `for await` over timers and streams.
@Suite(.serialized) struct AsyncValuesTests {
    @Test func fireDatesOfATimerOnItsOwnThread() async throws {
        let loop = try Loop()
        try loop.startThread()
        let timer = try TimerPublisher(every: 0.02, on: loop, in: .common).autoconnect()
        var dates: [Date] = []
        for await date in timer.values {
            dates.append(date)
            if dates.count == 3 { break }
        }
        #expect(dates.count == 3)
        let gaps = zip(dates.dropFirst(), dates).map { $0.timeIntervalSince($1) }
        #expect(gaps.allSatisfy { abs($0 - 0.02) < 1e-6 })  // on the grid
        #expect(timer.subscriberCount == 0 && !timer.isConnected)  // leaving the loop cancelled it, at once
        try loop.stopThread()
        try loop.close()
    }

    /// A `break` in a function ends the subscription before the next statement, even while the
    /// loop's thread is still returning from the delivery that resumed the iteration.
    @Test func aBreakEndsTheSubscriptionBeforeTheNextStatement() async throws {
        let loop = try Loop()
        try loop.startThread()
        let timer = try TimerPublisher(every: .milliseconds(1), on: loop, in: .common).autoconnect()
        var left: [Int] = []
        for _ in 0..<50 {
            for await _ in timer.values { break }
            left.append(timer.subscriberCount + loop.armedTimerCount)
        }
        #expect(left == [Int](repeating: 0, count: 50))
        try loop.stopThread()
        try loop.close()
    }

    @Test func countdownValuesEndAtZero() async throws {
        let clock = VirtualScheduler()
        let values = try clock.countdown(to: clock.now.addingTimeInterval(3), tick: 0.25).values()
        try clock.advance(by: 4)
        var seen: [Int] = []
        for await value in values { seen.append(value) }
        #expect(seen == [3, 2, 1, 0])
        #expect(clock.armedTimerCount == 0)
    }

    private static func milliseconds(_ date: Date) -> Int { Int((date.timeIntervalSince1970 * 1000).rounded()) }

    /// An iterator that is never destroyed, as in the top-level code of a `main.swift` that
    /// awaits: `first(_:)` still ends the subscription, as it hands out the last value.
    @Test func firstEndsItsSubscriptionWithoutTheIteratorsDeinit() async throws {
        let v = VirtualLoop()
        let timer = try TimerPublisher(every: .milliseconds(100), on: v.loop).autoconnect()
        var iterator = timer.values.first(3).makeAsyncIterator()
        #expect(timer.subscriberCount == 1 && v.loop.armedTimerCount == 1)
        try v.loop.run(for: .milliseconds(450))  // four ticks buffered
        var dates: [Int] = []
        for _ in 0..<2 { dates.append(Self.milliseconds(try #require(await iterator.next()))) }
        #expect(timer.subscriberCount == 1)
        dates.append(Self.milliseconds(try #require(await iterator.next())))
        #expect(dates == [100, 200, 300])
        #expect(timer.subscriberCount == 0 && v.loop.armedTimerCount == 0)  // with the iterator alive
        #expect(await iterator.next() == nil)
        #expect(timer.values.first(0).makeAsyncIterator().buffer.isEnded && timer.subscriberCount == 0)
        withExtendedLifetime(iterator) {}
    }

    /// Cancelling the task that waits ends the iteration and its subscription at once, not at
    /// the next tick nor when the iterator goes away (it is kept alive here).
    @Test func aCancelledTaskEndsItsSubscriptionAtOnce() async throws {
        let v = VirtualLoop()
        let timer = try TimerPublisher(every: .seconds(1), on: v.loop).autoconnect()
        let iterator = timer.values.makeAsyncIterator()
        let task = Task {
            var copy = iterator
            return await copy.next()
        }
        task.cancel()
        #expect(await task.value == nil)
        #expect(timer.subscriberCount == 0 && v.loop.armedTimerCount == 0)
        var again = iterator
        #expect(await again.next() == nil)  // ended for good
        withExtendedLifetime(iterator) {}
    }

    @Test func anIterationStartsItsSubscriptionWhenItStarts() throws {
        let v = VirtualLoop()
        let timer = try TimerPublisher(every: .seconds(1), on: v.loop).autoconnect()
        let values = timer.values
        #expect(timer.subscriberCount == 0)  // reading `values` subscribes nothing
        let first = values.makeAsyncIterator(), second = values.makeAsyncIterator()
        #expect(timer.subscriberCount == 2)
        withExtendedLifetime((first, second)) {}
    }

    /// The real thing: `for await` in the top-level code of a `main.swift` (Tests/TopLevelValues),
    /// where Swift never destroys the loop's iterator.
    @Test func topLevelCodeEndsItsSubscriptions() throws {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let me = String(decoding: buffer[..<max(0, length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let program = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/TopLevelValues"
        let pipe = try #require(popen("'\(program)' 2>&1", "r"))
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&chunk, 1, chunk.count, pipe), count > 0 { output += chunk[..<count] }
        #expect(pclose(pipe) == 0)
        #expect(String(decoding: output, as: UTF8.self)
                == "first: 3 values, 0 subscribers, 0 armed\ncancelled: 0 subscribers, 0 armed\n")
    }
}
