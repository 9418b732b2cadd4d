@testable import Cadence
import Testing

/// Passes, callbacks, one-shots, lifetime and bad input (Cadence.docc/Semantics.md, "Passes and
/// callbacks"; Cadence.docc/Errors.md), in virtual time.
@Suite struct LoopTests {
    @Test func timerArmedDuringAPassWaitsForTheNextPass() throws {
        let v = VirtualLoop()
        let log = Recorder<String>()
        let restart = Shared<(@Sendable () throws -> Void)?>(nil)
        restart.value = {
            try v.loop.schedule(after: 0) { _ in
                log.append("zero")
                try? restart.value?()
            }
        }
        try restart.value?()
        try v.loop.schedule(after: 0) { _ in log.append("other") }
        try v.loop.run(for: 0)
        #expect(log.values == ["zero", "other"])  // one pass returns, both ran once
        try v.loop.run(for: 0)
        #expect(log.values == ["zero", "other", "zero"])
    }

    @Test func oneShotFiresOnceAtItsFireDateAndCanBeCancelled() throws {
        let v = VirtualLoop()
        let fired = Recorder<Int>()
        let once = try v.loop.schedule(after: 0.25) { fired.append($0.milliseconds) }
        let never = try v.loop.schedule(after: 0.1) { _ in fired.append(-1) }
        never.cancel()
        #expect(never.isCancelled && !once.isCancelled)
        try v.loop.run(for: 1)
        #expect(fired.values == [250])
        #expect(once.isCancelled)  // a fired.values one-shot is done
        #expect(v.loop.armedTimerCount == 0)
    }

    @Test func runFromItsOwnCallbackIsBusyAndStopEndsTheRun() throws {
        let v = VirtualLoop()
        let nested = Shared<CadenceError?>(nil)
        let closeError = Shared<CadenceError?>(nil)
        try v.loop.schedule(after: 0.1) { _ in
            do { try v.loop.run(for: 1) } catch let error as CadenceError { nested.value = error } catch {}
            do { try v.loop.close() } catch let error as CadenceError { closeError.value = error } catch {}
            v.loop.stop()
        }
        let later = Shared(false)
        try v.loop.schedule(after: 0.5) { _ in later.value = true }
        try v.loop.run(for: 10)
        #expect(nested.value == .busy)
        #expect(nested.value?.description == "Loop.run(mode:for:): loop must not be running to run, got a running loop "
                + "(a run has not returned: called from one of its callbacks or from another thread?)")
        #expect(closeError.value == .busy)
        #expect(closeError.value?.description.hasPrefix("Loop.close(): loop must not be running to be closed") == true)
        #expect(!later.value)
        #expect(v.milliseconds == 100)  // stop returned from the run at the pass
        #expect(!v.loop.isClosed && !v.loop.isRunning)
    }

    /// What a timer's action captured is freed outside the loop's lock, so its deinit may call
    /// into the loop: after a one-shot fires, after a cancel, and when the loop closes.
    @Test func actionsAreReleasedOutsideTheLoopsLock() throws {
        final class CancelsOnDeinit: Sendable {
            let timer: ScheduledTimer
            init(_ timer: ScheduledTimer) { self.timer = timer }
            deinit { timer.cancel() }
        }
        let v = VirtualLoop()
        let victims = try (0..<3).map { _ in try v.loop.schedule(after: 100) { _ in } }
        try v.loop.schedule(after: 0.1) { [holder = CancelsOnDeinit(victims[0])] _ in _ = holder }
        try v.loop.schedule(after: 0.1) { _ in }  // fired next in the same pass
        try v.loop.run(for: 1)
        #expect(victims[0].isCancelled && !victims[1].isCancelled)
        let cancelled = try v.loop.schedule(after: 1) { [holder = CancelsOnDeinit(victims[1])] _ in _ = holder }
        cancelled.cancel()
        #expect(victims[1].isCancelled && !victims[2].isCancelled)
        try v.loop.schedule(after: 1) { [holder = CancelsOnDeinit(victims[2])] _ in _ = holder }
        try v.loop.close()
        #expect(victims[2].isCancelled)
    }

    /// Past 2⁶³ ns (292 years) a virtual clock still reads forward; a run or an advance that would
    /// take it to its end (2⁶⁴ − 1 ns, 584 years) is refused and moves nothing, so that timers
    /// armed afterwards still fire.
    @Test func aVirtualClockStopsShortOfItsEnd() throws {
        let v = VirtualLoop()
        try v.loop.jumpClock(by: 1e10)
        #expect(v.loop.now.timeIntervalSince1970 == 1e10)
        let dates = Recorder<Double>()
        let timer = try v.loop.schedule(after: 1, interval: 7e9) { dates.append($0.fireDate.timeIntervalSince1970) }
        try v.loop.run(for: 8e9)
        #expect(dates.values == [10_000_000_001, 17_000_000_001] && !timer.isCancelled)
        #expect(throws: CadenceError.invalidArgument) { try v.loop.run(for: 1e9) }
        #expect(throws: CadenceError.invalidArgument) { try v.loop.jumpClock(by: 1e9) }
        #expect(throws: CadenceError.invalidArgument) { try v.loop.run(for: 1e300) }
        #expect(v.loop.now.timeIntervalSince1970 == 1.8e10)
        let once = Shared(0)
        try v.loop.schedule(after: 1) { _ in once.value += 1 }
        try v.loop.run(for: 1)
        #expect(once.value == 1)
        #expect(dates.count == 2)
    }

    @Test func closeCancelsEverythingAndLaterCallsFail() throws {
        let v = VirtualLoop()
        let fired = Shared(0)
        let publisher = try TimerPublisher(every: 0.1, on: v.loop, in: .default)
        let subscription = publisher.subscribe { _ in fired.value += 1 }
        let connection = publisher.connect()
        let once = try v.loop.schedule(after: 0.1) { _ in fired.value += 1 }
        try v.loop.close()
        try v.loop.close()  // closing twice is harmless
        #expect(v.loop.isClosed && v.loop.armedTimerCount == 0)
        #expect(once.isCancelled)
        #expect(throws: CadenceError.badHandle) { try v.loop.run(for: 1) }
        #expect(throws: CadenceError.badHandle) { try v.loop.schedule(after: 1) { _ in } }
        #expect(throws: CadenceError.badHandle) { try TimerPublisher(every: 1, on: v.loop, in: .default) }
        #expect(throws: CadenceError.badHandle) { try v.loop.addMode(RunLoopMode("m")) }
        #expect(publisher.connect().isCancelled)
        connection.cancel()
        subscription.cancel()
        #expect(fired.value == 0)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -1, 0, -0.0])
    func badIntervals(_ interval: Double) throws {
        let v = VirtualLoop()
        #expect(throws: CadenceError.invalidArgument) { try TimerPublisher(every: interval, on: v.loop, in: .default) }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -1, -1e-9])
    func badDurationsAndTolerances(_ value: Double) throws {
        let v = VirtualLoop()
        #expect(throws: CadenceError.invalidArgument) { try v.loop.run(for: value) }
        #expect(throws: CadenceError.invalidArgument) { try v.loop.schedule(after: value) { _ in } }
        #expect(throws: CadenceError.invalidArgument) { try v.loop.schedule(after: 1, tolerance: value) { _ in } }
        #expect(throws: CadenceError.invalidArgument) {
            try TimerPublisher(every: 1, tolerance: value, on: v.loop, in: .default)
        }
        #expect(v.loop.armedTimerCount == 0)
    }

    /// One error of each kind, with what its description says: the call, the argument, the rule
    /// and the value (the same words as the C and Python messages).
    @Test func eachKindOfErrorSaysWhatIsWrong() throws {
        let v = VirtualLoop()
        let real = try Loop()
        defer { try? real.close() }
        let cases: [(CadenceError, String, () throws(CadenceError) -> Void)] = [
            (.invalidArgument, "Loop.schedule(after:tolerance:in:_:): delay must be >= 0 and finite, got nan",
             { () throws(CadenceError) in try v.loop.schedule(after: .nan) { _ in } }),
            (.invalidArgument, "TimerPublisher(every:tolerance:on:in:missedTicks:): interval must be > 0 and finite, got inf",
             { () throws(CadenceError) in _ = try TimerPublisher(every: .infinity, on: v.loop) }),
            // run takes infinity (until stopped), so its rule says so.
            (.invalidArgument, "Loop.run(mode:for:): seconds must be >= 0, or infinity to run until stopped, got -1.0",
             { () throws(CadenceError) in try v.loop.run(for: -1) }),
            (.invalidArgument, "Loop.run(mode:for:): seconds must be >= 0, or infinity to run until stopped, got nan",
             { () throws(CadenceError) in try real.run(for: .nan) }),
            (.invalidArgument, "Loop.run(mode:for:): seconds must be >= 0, or infinity to run until stopped, got -inf",
             { () throws(CadenceError) in try real.run(for: -.infinity) }),
            (.invalidArgument, "Loop.run(mode:for:): seconds must keep a virtual clock before its end (2^64 - 1 ns, "
                + "about 584 years after its start), got inf (a virtual loop cannot run until stop(): pass a duration, "
                + "or run until idle)",
             { () throws(CadenceError) in try v.loop.run(for: .infinity) }),
            (.invalidArgument, "Loop.run(mode:for:): seconds must keep a virtual clock before its end (2^64 - 1 ns, "
                + "about 584 years after its start), got 1e+300",
             { () throws(CadenceError) in try v.loop.run(for: 1e300) }),
            (.invalidArgument, "Loop.schedule(after:interval:tolerance:in:missedTicks:_:): interval must be > 0 and finite, got 0.0",
             { () throws(CadenceError) in _ = try v.loop.schedule(after: 0, interval: 0) { _ in } }),
            (.invalidArgument, "TimerPublisher(every:tolerance:on:in:missedTicks:): tolerance must be >= 0 and finite, got -1.0",
             { () throws(CadenceError) in _ = try TimerPublisher(every: 1, tolerance: -1, on: v.loop) }),
            (.unknownMode, "TimerPublisher(every:tolerance:on:in:missedTicks:): mode must be registered on the loop first "
                + "(added as a mode or a common mode), got \"fast\"",
             { () throws(CadenceError) in _ = try TimerPublisher(every: 1, on: v.loop, in: RunLoopMode("fast")) }),
            (.invalidArgument, "Loop.addMode(_:): mode must be 1-255 bytes of UTF-8 without control characters, got \"\"",
             { () throws(CadenceError) in try v.loop.addMode(RunLoopMode("")) }),
            (.invalidArgument, "Loop.addMode(_:): mode must be 1-255 bytes of UTF-8 without control characters, got \"a\\u{0085}b\"",
             { () throws(CadenceError) in try v.loop.addMode(RunLoopMode("a\u{85}b")) }),
            (.unknownMode, "Loop.run(mode:for:): mode must be registered on the loop first (added as a mode or a common mode), "
                + "got \"x\\u{2028}y\\u{202E}\"",
             { () throws(CadenceError) in try v.loop.run(mode: RunLoopMode("x\u{2028}y\u{202E}"), for: 0) }),
            (.invalidArgument, "Loop.addMode(_:): mode must be 1-255 bytes of UTF-8 without control characters, got \""
                + String(repeating: "m", count: 255) + "\"... (300 bytes)",
             { () throws(CadenceError) in try v.loop.addMode(RunLoopMode(String(repeating: "m", count: 300))) }),
            (.invalidArgument, "Loop.run(mode:for:): mode must not be \"common\" (a pseudo-mode, never run itself), got \"common\"",
             { () throws(CadenceError) in try v.loop.run(mode: .common, for: 1) }),
            (.notSupported, "Loop.startThread(mode:): loop must be a real loop, got a virtual loop (its clock moves only when told)",
             { () throws(CadenceError) in try v.loop.startThread() }),
            (.notSupported, "Loop.jumpClock(by:): loop must be a virtual loop, got a real loop (its clock is libuv's)",
             { () throws(CadenceError) in try real.jumpClock(by: 1) }),
            (.invalidArgument, "Countdown.subscribe(_:): tick must be > 0 and finite, got 0.0",
             { () throws(CadenceError) in _ = try v.loop.countdown(to: v.loop.now, tick: 0).subscribe { _ in } }),
        ]
        for (code, description, call) in cases {
            do {
                try call()
                Issue.record("no error for \(description)")
            } catch {
                #expect(error == code)
                #expect(error.description == description)
            }
        }
        try v.loop.close()
        do {
            try v.loop.schedule(after: 1) { _ in }
            Issue.record("a closed loop scheduled a timer")
        } catch {
            #expect(error.description == "Loop.schedule(after:tolerance:in:_:): loop must be open, got a closed loop")
        }
        #expect(v.loop.armedTimerCount == 0)
    }

    /// The message is detail: errors compare and hash by code, so `#expect(throws:)` and
    /// `catch CadenceError.busy` match whatever the message says.
    @Test func errorsCompareAndHashByCode() {
        let detailed = CadenceError(code: -16, message: "loop must not be running")
        #expect(detailed == .busy)
        #expect(detailed.in("Loop.run(mode:for:)") == .busy)
        #expect(Set([detailed, .busy, .badHandle]).count == 2)
        #expect(detailed.description == "loop must not be running")
        #expect(detailed.in("Loop.run(mode:for:)").description == "Loop.run(mode:for:): loop must not be running")
        #expect(detailed.in("A.b()").in("C.d()").call == "C.d()")  // the outermost call names it
        #expect(CadenceError.busy.message == "loop is running" && CadenceError.busy.call.isEmpty)
        switch detailed {
        case CadenceError.busy: break
        default: Issue.record("a detailed EBUSY did not match .busy")
        }
    }

    @Test func errorsHaveNamesAndMessages() {
        for error in CadenceError.all {
            #expect(error.code < 0)
            #expect(error.name.hasPrefix("E"))
            #expect(!error.description.isEmpty)
        }
        #expect(CadenceError.invalidArgument.name == "EINVAL" && CadenceError.invalidArgument.code == -22)
        #expect(CadenceError(code: -9999).name == "UNKNOWN")
    }
}
