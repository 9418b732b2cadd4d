import Dispatch
@testable import Cadence
import Synchronization
import Testing

/// Reset (Foundation's `fireDate` setter, Go's `Timer.Reset`, Node's `refresh()`, libuv's
/// `uv_timer_again`) and introspection (Foundation's `fireDate`, `timeInterval`, `tolerance`,
/// `isValid`; asyncio's `TimerHandle.when()`) of scheduled timers.
@Suite struct ScheduledTimerResetTests {
    /// A debounce: one one-shot, reset on each of 1,000 events 1 ms apart, fires once, 0.2 s
    /// after the last reset.
    @Test func aDebounceResetAThousandTimesFiresOnceAfterTheLast() throws {
        let v = VirtualLoop()
        let fires = Recorder<Int>()
        let debounce = try v.loop.schedule(after: 0.2) { fires.append($0.milliseconds) }
        for _ in 0..<1000 {
            try v.loop.run(for: 0.001)
            try debounce.reset(after: 0.2)
        }
        let lastReset = v.milliseconds
        #expect(lastReset == 1000)
        try v.loop.run(for: 0.199)
        #expect(fires.isEmpty)
        try v.loop.run(for: 1)
        #expect(fires.values == [1200])
        #expect(debounce.isCancelled)
        #expect(throws: CadenceError.alreadyCancelled) { try debounce.reset(after: 0.2) }
    }

    @Test func aResetFromItsOwnCallbackOrDuringAPassWaitsForTheNextPass() throws {
        let v = VirtualLoop()
        let log = Recorder<String>()
        let count = Shared(0)
        let timer = Shared<ScheduledTimer?>(nil)
        timer.value = try v.loop.schedule(after: 0.1, interval: 1) { tick in
            log.append("\(tick.milliseconds)@\(v.milliseconds)")
            count.value += 1
            if count.value < 3 { try? timer.value?.reset(after: 0) }  // due at once, but not in this pass
        }
        try v.loop.run(for: 0.1)
        #expect(log.values == ["100@100"])  // the run ends with the pass at 0.1 s
        try v.loop.run(for: 0)
        #expect(log.values == ["100@100", "100@100"])  // one fire per pass
        try v.loop.run(for: 0)
        #expect(log.values == ["100@100", "100@100", "100@100"])
        try v.loop.run(for: 1)
        #expect(log.values == ["100@100", "100@100", "100@100", "1100@1100"])
        timer.value?.cancel()
    }

    @Test func badResetsThrowAndLeaveTheTimerAsItWas() throws {
        let v = VirtualLoop()
        let timer = try v.loop.schedule(after: 1) { _ in }
        for bad in [-1, Double.nan, .infinity] {
            #expect(throws: CadenceError.invalidArgument) { try timer.reset(after: bad) }
        }
        #expect(timer.fireDate?.timeIntervalSince1970 == 1)
        timer.cancel()
        #expect(throws: CadenceError.alreadyCancelled) { try timer.reset(after: 1) }
        let other = try v.loop.schedule(after: 1) { _ in }
        try v.loop.close()
        #expect(throws: CadenceError.badHandle) { try other.reset(after: 1) }
        #expect(other.fireDate == nil && other.interval == nil && other.tolerance == nil)
    }

    @Test func aOneShotTellsItsScheduleUntilItFires() throws {
        let v = VirtualLoop()
        let seen = Recorder<Double?>()
        let timer = Shared<ScheduledTimer?>(nil)
        timer.value = try v.loop.schedule(after: 1.5, tolerance: 0.25) { _ in seen.append(timer.value?.fireDate?.timeIntervalSince1970) }
        #expect(timer.value?.fireDate?.timeIntervalSince1970 == 1.5)
        #expect(timer.value?.interval == 0)
        #expect(timer.value?.tolerance == 0.25)
        #expect(timer.value?.isCancelled == false)
        try v.loop.run(for: 0.5)
        try timer.value?.reset(after: 2)
        #expect(timer.value?.fireDate?.timeIntervalSince1970 == 2.5)
        #expect(timer.value?.schedule?.fireDate == 2.5)
        try v.loop.run(for: 3)
        #expect(seen.values == [nil])  // in its own callback a one-shot has ended
        #expect(timer.value?.fireDate == nil && timer.value?.interval == nil && timer.value?.tolerance == nil)
        #expect(timer.value?.isCancelled == true)
    }

    @Test func aRepeatingTimerTellsItsNextGridPoint() throws {
        let v = VirtualLoop()
        let seen = Recorder<String>()
        let timer = Shared<ScheduledTimer?>(nil)
        timer.value = try v.loop.schedule(after: 0.5, interval: 0.25) { tick in
            let next = timer.value?.schedule?.fireDate ?? -1
            seen.append("\(tick.fireDateSeconds)->\(next)")
        }
        #expect(timer.value?.schedule?.fireDate == 0.5)
        #expect(timer.value?.interval == 0.25 && timer.value?.tolerance == 0)
        try v.loop.run(for: 0.75)
        #expect(seen.values == ["0.5->0.75", "0.75->1.0"])
        #expect(timer.value?.fireDate?.timeIntervalSince1970 == 1)
        v.block(for: 0.6)  // late: the next fire date stays on the grid
        #expect(timer.value?.schedule?.fireDate == 1)
        try v.loop.run(for: 0)
        #expect(timer.value?.schedule?.fireDate == 1.5)
        timer.value?.cancel()
        #expect(timer.value?.fireDate == nil && timer.value?.interval == nil && timer.value?.isCancelled == true)
    }

    /// Reset against a fire on the loop's own thread: the loop's lock decides. Either the reset
    /// returned first, and the one fire comes at the reset's fire date, or the callback had
    /// started, and the reset threw `alreadyCancelled` and the one fire was at the original date.
    @Test func aResetFromAnotherThreadWinsOnlyBeforeTheFireStarts() throws {
        let loop = try Loop()
        try loop.startThread()
        defer { try? loop.stopThread(); try? loop.close() }
        var outcomes: Set<String> = []
        for attempt in 0..<40 {
            let fired = DispatchSemaphore(value: 0)
            let dates = Mutex<[Double]>([])
            let before = loop.nowSeconds
            let timer = try loop.schedule(after: 0.002) { tick in
                dates.withLock { $0.append(tick.fireDateSeconds) }
                fired.signal()
            }
            let after = loop.nowSeconds
            // Reset at varying moments around the fire date.
            let resetAt = before + 0.0001 * Double(attempt % 30)
            while loop.nowSeconds < resetAt {}
            let resetStart = loop.nowSeconds
            var won = true
            do { try timer.reset(after: 0.01) } catch { #expect(error == .alreadyCancelled); won = false }
            let resetEnd = loop.nowSeconds
            #expect(fired.wait(timeout: .now() + 10) == .success)
            #expect(fired.wait(timeout: .now() + 0.02) == .timedOut)  // one fire only
            let date = try #require(dates.withLock { $0 }.first)
            if won {
                #expect(date >= resetStart + 0.01 - 1e-6 && date <= resetEnd + 0.01 + 1e-6)
            } else {
                #expect(date >= before + 0.002 - 1e-6 && date <= after + 0.002 + 1e-6)
            }
            #expect(timer.isCancelled && timer.fireDate == nil)
            outcomes.insert(won ? "won" : "lost")
        }
        #expect(!outcomes.isEmpty)
    }

    /// A repeating timer reset from another thread while the loop thread runs it moves its next
    /// fire date: the fires after the reset are on the new grid.
    @Test func aRepeatingTimerResetFromAnotherThreadMovesItsGrid() throws {
        let loop = try Loop()
        try loop.startThread()
        defer { try? loop.stopThread(); try? loop.close() }
        let dates = Mutex<[Double]>([])
        let fired = DispatchSemaphore(value: 0)
        let timer = try loop.schedule(after: 0.005, interval: 0.005) { tick in
            dates.withLock { $0.append(tick.fireDateSeconds) }
            fired.signal()
        }
        #expect(fired.wait(timeout: .now() + 10) == .success)
        let resetStart = loop.nowSeconds
        try timer.reset(after: 0.5)
        let resetEnd = loop.nowSeconds
        let next = try #require(timer.schedule?.fireDate)
        #expect(next >= resetStart + 0.5 - 1e-6 && next <= resetEnd + 0.5 + 1e-6)
        // Wait for a fire on the new grid; until then only a callback that had started before
        // the reset returned may have come, with a fire date before the reset's end.
        var late: [Double] = []
        while !late.contains(where: { $0 >= next - 1e-6 }) {
            #expect(fired.wait(timeout: .now() + 10) == .success)
            late = dates.withLock { $0 }.filter { $0 > resetEnd }
        }
        #expect(late.allSatisfy { date in
            let periods = (date - next) / 0.005
            return date >= next - 1e-6 && abs(periods - periods.rounded()) < 1e-3
        })
        timer.cancel()
    }
}
