import CLibUV
import Dispatch
import Glibc
@testable import Cadence
import Synchronization
import Testing

/// A loop inside a host's loop (docs/c-api.md, "Using Cadence inside your own loop"): a poll()
/// loop over the descriptor with one pass at a time, a loop on a host's `uv_loop_t`, and a run
/// until stop. Real clock, wide ranges; the same cases as Tests/C/descriptor_poll.c and uv_host.c.
@Suite(.serialized) struct LoopHostTests {
    /// Grid points served per timer, as step counts from each timer's start (fired, or skipped
    /// and reported by the next fire), and whether any fire came early or off its grid.
    /// Used only on the thread that runs its loop (the test's): no lock needed.
    final class Drive: @unchecked Sendable {
        static let intervals = [0.1, 0.15, 0.25]
        static let tolerances = [0, 0.05, 0]
        static let end = 0.61
        let loop: Loop
        var points = [[Int]](repeating: [Int](repeating: 0, count: 16), count: 3)
        var first = [Double](repeating: .nan, count: 3)
        var endDate = 0.0
        var done = false
        var early = 0
        var offGrid = 0
        var timers: [ScheduledTimer] = []

        init(_ loop: Loop) throws {
            self.loop = loop
            for index in 0..<3 {
                let interval = Self.intervals[index]
                timers.append(try loop.schedule(after: interval, interval: interval, tolerance: Self.tolerances[index]) {
                    [unowned self] tick in self.record(tick, index: index)
                })
            }
            timers.append(try loop.schedule(after: Self.end) { [unowned self] tick in
                done = true
                endDate = tick.fireDate.timeIntervalSince1970
                self.loop.stop()  // ends run(); nothing when polled
            })
        }

        private func record(_ tick: TimerTick, index: Int) {
            let date = tick.fireDate.timeIntervalSince1970
            let interval = Self.intervals[index]
            if loop.now < tick.fireDate { early += 1 }
            if first[index].isNaN { first[index] = date - Double(1 + tick.skipped) * interval }
            let steps = (date - first[index]) / interval
            let k = Int(steps.rounded())
            if abs(steps - Double(k)) * interval > 1e-5 { offGrid += 1 }
            for j in max(0, k - tick.skipped)...k where j < 16 { points[index][j] += 1 }
        }

        /// Every grid point before the end served once (a late pass may also serve later ones).
        func checkPoints() {
            #expect(early == 0)
            #expect(offGrid == 0)
            for index in 0..<3 {
                for k in 1..<16 {
                    let beforeEnd = first[index] + Double(k) * Self.intervals[index] < endDate
                    #expect(beforeEnd == (Double(k) * Self.intervals[index] < Self.end))
                    if beforeEnd { #expect(points[index][k] == 1) } else { #expect(points[index][k] <= 1) }
                }
            }
        }
    }

    /// poll() on `fd` for up to `milliseconds`; whether it is readable.
    static func readable(_ fd: Int32, within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    @Test func aPollLoopOverTheDescriptorServesTheSameGridPointsAsRun() throws {
        let byRun = try Drive(try Loop())
        try byRun.loop.run()  // until the one-shot stops it
        #expect(byRun.done)
        byRun.checkPoints()

        let loop = try Loop()
        let fd = try loop.fileDescriptor()
        #expect(try loop.fileDescriptor() == fd)
        #expect(!Self.readable(fd, within: 0))  // nothing armed
        let byPoll = try Drive(loop)
        var passes = 0
        while !byPoll.done {
            let timeout = try #require(try loop.timeout())
            #expect((0...0.25).contains(timeout))
            #expect(Self.readable(fd, within: 2000))
            try loop.runPass()
            passes += 1
            // Unreadable after a pass, unless a wake-up is due now.
            if Self.readable(fd, within: 0) { #expect(try loop.timeout() == 0) }
        }
        // One pass per wake-up at most (about 10 due by the end; fewer when the machine is late and
        // a pass serves several), never a spin.
        #expect((1...40).contains(passes))
        byPoll.checkPoints()
        try byRun.loop.close()
        try loop.close()
        #expect(throws: CadenceError.badHandle) { try loop.fileDescriptor() }
        #expect(throws: CadenceError.badHandle) { try loop.timeout() }
        #expect(throws: CadenceError.badHandle) { try loop.runPass() }
    }

    @Test func aTimerArmedDuringAPassWaitsForTheNextAndLeavesTheDescriptorReadable() throws {
        let loop = try Loop()
        let fd = try loop.fileDescriptor()
        let fires = Shared(0)
        let restart = Shared<(@Sendable () throws -> Void)?>(nil)
        restart.value = {
            try loop.schedule(after: 0) { _ in
                fires.value += 1
                try? restart.value?()
            }
        }
        try restart.value?()
        #expect(Self.readable(fd, within: 1000))
        for pass in 1...3 {
            try loop.runPass()
            #expect(fires.value == pass)  // one fire per pass, never a spin
            #expect(Self.readable(fd, within: 0))
            #expect(try loop.timeout() == 0)
        }
        restart.value = nil
        try loop.close()
    }

    @Test(arguments: [0.0, 0.03])
    func aTimerArmedFromAnotherThreadWakesThePoll(delay: Double) throws {
        let loop = try Loop()
        let fd = try loop.fileDescriptor()
        let armedAt = Mutex(0.0)
        let fired = Mutex(false)
        DispatchQueue.global().async {
            usleep(50_000)  // lets the test block in poll(); the result does not depend on it
            armedAt.withLock { $0 = loop.nowSeconds }
            _ = try? loop.schedule(after: delay) { tick in
                #expect(loop.now >= tick.fireDate)
                fired.withLock { $0 = true }
            }
        }
        #expect(Self.readable(fd, within: 5000))  // nothing was armed when it began to wait
        let woke = loop.nowSeconds - armedAt.withLock { $0 }
        #expect(woke >= delay && woke <= delay + 0.1)  // a few milliseconds, typically
        try loop.runPass()
        #expect(fired.withLock { $0 })
        #expect(!Self.readable(fd, within: 0))
        try loop.close()
    }

    @Test func aTimerCancelledFromAnotherThreadLeavesTheDescriptorUnreadableAtItsDueTime() throws {
        let loop = try Loop()
        let fd = try loop.fileDescriptor()
        let armed = loop.nowSeconds
        let timer = try loop.schedule(after: 0.5) { _ in Issue.record("a cancelled timer fired") }
        #expect(try (0.25...0.5).contains(#require(try loop.timeout())))
        // The cancel is made and done on another thread first, so that a slow machine cannot make
        // it come after the due time; then the descriptor is watched until well past that time.
        let cancelledAt = Mutex(0.0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            timer.cancel()
            cancelledAt.withLock { $0 = loop.nowSeconds }
            done.signal()
        }
        done.wait()
        #expect(cancelledAt.withLock { $0 } - armed < 0.5)  // the cancel came before it was due
        let left = armed + 0.8 - loop.nowSeconds
        #expect(!Self.readable(fd, within: left > 0 ? Int32((left * 1000).rounded(.up)) : 0))
        #expect(loop.nowSeconds - armed >= 0.8)
        #expect(try loop.timeout() == nil)
        try loop.runPass()
        try loop.close()
    }

    /// The run outlives its only timer (a run until idle would end there) and ends at the stop.
    /// The stopping thread waits for that timer's fire, not for a guessed time: stop() does
    /// nothing before the run begins.
    @Test func runWithoutADurationEndsWhenStoppedFromAnotherThread() throws {
        let loop = try Loop()
        let fired = Shared(false)
        let stoppedAt = Shared(Double.infinity)
        let timer = try loop.schedule(after: 0.05) { _ in fired.value = true }
        DispatchQueue.global().async {
            #expect(waitUntil { fired.value })
            #expect(loop.isRunning)  // nothing is armed now, and the run goes on
            stoppedAt.value = loop.nowSeconds
            loop.stop()
        }
        try loop.run()
        #expect(loop.nowSeconds >= stoppedAt.value)  // the run ended after the stop, not before
        withExtendedLifetime(timer) {}
        #expect(throws: CadenceError.invalidArgument) { try loop.run(for: -.infinity) }
        try loop.close()
    }

    /// The same case as `stop_wakes_descriptor` in Tests/C/descriptor_poll.c.
    @Test func aStopOfALoopDrivenByPassesMakesItsDescriptorReadableUntilThePass() throws {
        let loop = try Loop()
        let fd = try loop.fileDescriptor()
        try loop.runPass()
        #expect(!Self.readable(fd, within: 0))
        loop.stop()
        #expect(Self.readable(fd, within: 1000))
        try loop.runPass()
        #expect(!Self.readable(fd, within: 0))
        try loop.close()
    }

    @Test func aVirtualLoopHasNoDescriptorAndAPassFiresWhatIsDueAtItsClock() throws {
        let loop = Loop.virtual()
        #expect(throws: CadenceError.notSupported) { try loop.fileDescriptor() }
        #expect(throws: CadenceError.invalidArgument) { try loop.run() }  // its clock would end
        let forever = #expect(throws: CadenceError.self) { try loop.run() }
        #expect(forever?.description == "Loop.run(mode:): loop must be a real loop to run until stopped, "
                + "got a virtual loop (its clock would run to its end)")
        let fired = Recorder<Double>()
        try loop.schedule(after: 2) { fired.append($0.fireDate.timeIntervalSince1970) }
        #expect(try loop.timeout() == 2)
        try loop.runPass()
        #expect(fired.isEmpty)
        try loop.jumpClock(by: 2)
        #expect(try loop.timeout() == 0)
        try loop.runPass()
        #expect(fired.values == [2])
        #expect(loop.nowSeconds == 2)  // a pass does not move the clock
        #expect(try loop.timeout() == nil)
        #expect(throws: CadenceError.invalidArgument) { try loop.runPass(mode: .common) }
        #expect(throws: CadenceError.unknownMode) { try loop.runPass(mode: RunLoopMode("other")) }
        let nested = Shared<CadenceError?>(nil)
        try loop.schedule(after: 0) { _ in
            do { try loop.runPass() } catch let error as CadenceError { nested.value = error } catch {}
        }
        try loop.runPass()
        #expect(nested.value == .busy)
        try loop.close()
    }

    /// The host's state, reached from libuv's C callbacks through `data`.
    /// Used only on the thread that runs `uv_run` (the test's): no lock needed.
    final class Host: @unchecked Sendable {
        var loop: Loop?
        var fired: [Int] = []
        var offThread = 0
        var early = 0
        let thread = pthread_self()
        var timer = uv_timer_t()
    }

    @Test func aLoopOnAHostsUVLoopFiresFromItsUVRunAndLetsItClose() throws {
        var uv = uv_loop_t()
        #expect(uv_loop_init(&uv) == 0)
        let host = Host()
        let loop = try Loop(uvLoop: &uv)
        host.loop = loop
        #expect(throws: CadenceError.notSupported) { try loop.fileDescriptor() }
        #expect(throws: CadenceError.notSupported) { try loop.runPass() }
        #expect(throws: CadenceError.notSupported) { try loop.run(for: 0) }
        #expect(throws: CadenceError.notSupported) { try loop.startThread() }
        #expect(throws: CadenceError.invalidArgument) { try Loop(uvLoop: &uv, mode: .common) }
        for (index, delay) in [0.09, 0.03, 0.06].enumerated() {
            try loop.schedule(after: delay) { [unowned host] tick in
                if pthread_equal(pthread_self(), host.thread) == 0 { host.offThread += 1 }
                if loop.now < tick.fireDate { host.early += 1 }
                host.fired.append(index)
            }
        }
        // The host's own timer ends the program at 0.2 s: it closes the Cadence loop and itself.
        uv_timer_init(&uv, &host.timer)
        host.timer.data = Unmanaged.passUnretained(host).toOpaque()
        uv_timer_start(&host.timer, { timer in
            let host = Unmanaged<Host>.fromOpaque(timer!.pointee.data).takeUnretainedValue()
            try? host.loop?.close()
            uv_close(UnsafeMutableRawPointer(timer!).assumingMemoryBound(to: uv_handle_t.self), nil)
        }, 200, 0)
        #expect(uv_run(&uv, UV_RUN_DEFAULT) == 0)
        #expect(uv_loop_close(&uv) == 0)
        #expect(host.fired == [1, 2, 0])
        #expect(host.offThread == 0 && host.early == 0)
        #expect(loop.isClosed)
    }
}
