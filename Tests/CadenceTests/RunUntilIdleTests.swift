@testable import Cadence
import Dispatch
import Glibc
import Synchronization
import Testing

/// Running until no referenced timer is armed, and unreferenced timers (libuv's `UV_RUN_DEFAULT`
/// with `uv_unref`): the same cases as Tests/C/run_until_idle.c and
/// bindings/python/tests/test_run_until_idle.py, in virtual time, and one on the real clock.
@Suite struct RunUntilIdleTests {
    @Test func returnsRightAfterTheLastOneShotFires() throws {
        let v = VirtualLoop()
        let fired = Recorder<Int>()
        let once = try v.loop.schedule(after: 0.25) { fired.append($0.milliseconds) }
        #expect(once.hasRef)
        try v.loop.runUntilIdle()
        #expect(fired.values == [250])
        #expect(v.milliseconds == 250)
        #expect(!once.hasRef)  // it has ended
        try v.loop.runUntilIdle()  // nothing armed: returns at once
        #expect(v.milliseconds == 250)
    }

    @Test func anUnreferencedRepeatingTimerDoesNotKeepTheRunGoing() throws {
        let v = VirtualLoop()
        let ticks = Recorder<Int>()
        let every = try v.loop.schedule(after: 0.1, interval: 0.1) { ticks.append($0.milliseconds) }
        every.unref()
        every.unref()  // twice is harmless
        #expect(!every.hasRef && !every.isCancelled)
        try v.loop.runUntilIdle()
        #expect(ticks.values == [] && v.milliseconds == 0)  // nothing referenced: returns at once
        try v.loop.schedule(after: 0.35) { _ in }
        try v.loop.runUntilIdle()
        #expect(ticks.values == [100, 200, 300])  // fires while the referenced one-shot keeps the run going
        #expect(v.milliseconds == 350)
        #expect(!every.hasRef && v.loop.armedTimerCount == 1)  // still armed, still unreferenced
    }

    @Test func returnsWhenACountdownFinishesAtItsDeadline() throws {
        let v = VirtualLoop()
        let countdown = try TimelineRecorder(v.loop.countdown(to: v.loop.now.addingTimeInterval(3), tick: 0.25),
                                             scheduler: v.loop)
        try v.loop.runUntilIdle()
        #expect(countdown.events.last == "|@3000")  // the run ends with the finish (its timeline: countdown.jsonl)
        #expect(v.milliseconds == 3000)
        #expect(v.loop.armedTimerCount == 0)
        countdown.cancel()
    }

    @Test func anUnreferencedTimerReferencedAgainKeepsTheRunGoing() throws {
        let v = VirtualLoop()
        let ticks = Recorder<Int>()
        let every = Shared<ScheduledTimer?>(nil)
        every.value = try v.loop.schedule(after: 0.1, interval: 0.1) { tick in
            ticks.append(tick.milliseconds)
            if ticks.count == 3 { every.value!.cancel() }
        }
        every.value!.unref()
        try v.loop.runUntilIdle()
        #expect(ticks.values == [] && v.milliseconds == 0)
        every.value!.ref()
        every.value!.ref()  // twice is harmless
        #expect(every.value!.hasRef)
        try v.loop.runUntilIdle()
        #expect(ticks.values == [100, 200, 300])  // until its own callback cancelled it
        #expect(v.milliseconds == 300)
        every.value!.ref()  // on a cancelled timer: nothing
        #expect(!every.value!.hasRef)
    }

    @Test func isBusyFromACallbackAndStopEndsIt() throws {
        let v = VirtualLoop()
        let nested = Shared<CadenceError?>(nil)
        let ticks = Shared(0)
        let timer = try v.loop.schedule(after: 0.1, interval: 0.1) { _ in
            ticks.value += 1
            do { try v.loop.runUntilIdle() } catch let error as CadenceError { nested.value = error } catch {}
            if ticks.value == 3 { v.loop.stop() }
        }
        try withExtendedLifetime(timer) { try v.loop.runUntilIdle() }  // a referenced repeating timer: only stop() ends it
        #expect(nested.value == .busy)
        #expect(ticks.value == 3 && v.milliseconds == 300)
    }

    @Test func onlyTimersThatCanFireInTheRunningModeCount() throws {
        let v = VirtualLoop()
        let other = RunLoopMode("other")
        try v.loop.addMode(other)
        let fired = Recorder<String>()
        try v.loop.schedule(after: 0.1, in: other) { _ in fired.append("other") }
        try v.loop.runUntilIdle()
        #expect(fired.values == [] && v.milliseconds == 0)  // it can never fire in a default run
        try v.loop.schedule(after: 0.2, in: .common) { _ in fired.append("common") }
        try v.loop.runUntilIdle()  // default is a common mode
        #expect(fired.values == ["common"] && v.milliseconds == 200)
        try v.loop.runUntilIdle(mode: other)  // its own mode; the clock is past its date
        #expect(fired.values == ["common", "other"] && v.milliseconds == 200)
        #expect(throws: CadenceError.invalidArgument) { try v.loop.runUntilIdle(mode: .common) }
        #expect(throws: CadenceError.unknownMode) { try v.loop.runUntilIdle(mode: RunLoopMode("missing")) }
    }

    /// `isAlive(mode:)`: what a run until idle counts, for a host that drives the loop itself.
    @Test func aliveFollowsTheReferencedTimersOfAMode() throws {
        let v = VirtualLoop()
        #expect(try !v.loop.isAlive())
        let once = try v.loop.schedule(after: 1) { _ in }
        #expect(try v.loop.isAlive())
        once.unref()
        #expect(try !v.loop.isAlive())
        once.ref()
        #expect(try v.loop.isAlive())
        #expect(once.cancel())
        #expect(try !v.loop.isAlive())
        let other = RunLoopMode("other")
        try v.loop.addMode(other)
        try v.loop.schedule(after: 1, in: other) { _ in }
        #expect(try !v.loop.isAlive() && v.loop.isAlive(mode: other))
        #expect(throws: CadenceError.invalidArgument) { try v.loop.isAlive(mode: .common) }
        #expect(throws: CadenceError.unknownMode) { try v.loop.isAlive(mode: RunLoopMode("missing")) }
        try v.loop.close()
        #expect(throws: CadenceError.badHandle) { try v.loop.isAlive() }
    }

    @Test func onAClosedLoop() throws {
        let v = VirtualLoop()
        let once = try v.loop.schedule(after: 1) { _ in }
        try v.loop.close()
        #expect(throws: CadenceError.badHandle) { try v.loop.runUntilIdle() }
        once.unref()  // the loop cancelled it: nothing to do
        once.ref()
        #expect(!once.hasRef)
    }

    /// On the real clock: the run returns after the referenced one-shot, with the unreferenced
    /// repeating timer fired on the way; then a cancel from another thread of the last referenced
    /// timer, due in a minute, wakes the sleeping run, which returns.
    @Test func onTheRealClock() throws {
        let loop = try Loop()
        let ticks = Mutex(0)
        let every = try loop.schedule(after: 0.01, interval: 0.01) { _ in ticks.withLock { $0 += 1 } }
        every.unref()
        let fired = Mutex(0)
        let start = loop.now  // before the one-shot is armed: it is due 0.05 s after
        try loop.schedule(after: 0.05) { _ in fired.withLock { $0 += 1 } }
        try loop.runUntilIdle()
        let elapsed = loop.now.timeIntervalSince(start)
        #expect(fired.withLock { $0 } == 1)
        #expect(elapsed >= 0.05 && elapsed < 5)
        #expect((1...Int(elapsed / 0.01) + 1).contains(ticks.withLock { $0 }))

        let far = try loop.schedule(after: 60) { _ in }
        DispatchQueue.global().async {
            while !loop.isRunning { usleep(1_000) }
            far.cancel()
        }
        let sleeping = loop.now
        try loop.runUntilIdle()
        #expect(loop.now.timeIntervalSince(sleeping) < 30)
        #expect(far.isCancelled)
        every.cancel()
        try loop.close()
    }
}
