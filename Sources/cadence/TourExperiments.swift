import Cadence
import FoundationEssentials

/// The measurements of the article "Timers" (on Foundation's `Timer.publish`, see
/// ``Tour/article``), replayed on a real loop with the article's windows, then its countdown and
/// its exercise (a poller) in virtual time. Each experiment makes its own loop or virtual
/// scheduler, prints nothing, and returns its figures.
///
/// The `nonisolated(unsafe)` counters are written by callbacks that run on the experiment's own
/// thread (it runs the loop itself, `loop.run(for:)`) and read between runs, never concurrently.
enum TourExperiment: CaseIterable {
    case unconnectedTimer, autoconnectSharing, runLoopModes, blockedThread, tolerance, loopNotRun
    case virtualCountdown, poller

    /// The short name shown in the tour's table.
    var name: String {
        switch self {
        case .unconnectedTimer: "1 unconnected"
        case .autoconnectSharing: "2 autoconnect"
        case .runLoopModes: "3 modes"
        case .blockedThread: "4 blocked thread"
        case .tolerance: "5 tolerance"
        case .loopNotRun: "6 loop not run"
        case .virtualCountdown: "7 virtual countdown"
        case .poller: "8 poller"
        }
    }

    /// What the experiment does and why it matters, in plain words, printed under its row.
    var note: String {
        switch self {
        case .unconnectedTimer:
            "A 50 ms timer publisher with a subscriber but no connect(), then connected for 0.31 s, "
                + "then cancelled. A timer publisher does nothing until it is connected, and cancelling "
                + "the connection stops it for good: a subscription alone never starts a timer."
        case .autoconnectSharing:
            "A 100 ms autoconnect timer; a second subscriber joins after 0.25 s, both leave, then a "
                + "new one arrives. Subscribers share one timer (the late one gets the same fire dates, "
                + "not a timer of its own); the timer stops when nobody listens and starts afresh."
        case .runLoopModes:
            "Two 50 ms timers, one in the default mode and one in common, while the loop runs 0.5 s "
                + "in a custom mode registered as common (as an app's scroll-tracking mode). A timer "
                + "fires only in its modes: a clock in the default mode freezes while the user scrolls."
        case .blockedThread:
            "A 100 ms timer whose thread sleeps 0.55 s without running the loop. The missed ticks are "
                + "skipped, not fired in a burst, and the late fire says how many; so counting ticks "
                + "(ticks × interval) falls behind the clock: compute elapsed time from dates."
        case .tolerance:
            "A 100 ms timer allowed 50 ms of lateness, for 1.05 s; lateness is the clock read in the "
                + "callback minus the fire date. Tolerance lets timers share wake-ups to save power; "
                + "a timer never fires early, and the lateness never adds up over the ticks."
        case .loopNotRun:
            "A connected 50 ms timer on a loop that nobody runs, over 0.3 s of sleep, then one pass "
                + "of the loop. Timers fire only while their loop runs (a timer on a thread without a "
                + "run loop is silently dead); when it runs, an overdue timer fires once."
        case .virtualCountdown:
            "A 3 s countdown with 250 ms ticks on a virtual clock moved in jumps of 1.2, 1.5 and 2 s; "
                + "each event is the whole seconds left and the virtual time it came at. Computed from "
                + "the deadline, not by counting ticks, it is right after any gap, and tests exactly."
        case .poller:
            "A poller every 30 s in virtual time: steady, paused from 40 to 100 s, with 45 s responses, "
                + "and the tolerance it asks its scheduler for. Polls never overlap and stop while "
                + "inactive, and 10 % tolerance lets their wake-ups be shared."
        }
    }

    /// Runs the experiment (each on a real loop takes 0.3 to 1.2 s of real time, each in virtual
    /// time next to none) and returns its result.
    ///
    /// - Throws: a ``CadenceError`` from the loop or a timer.
    func run() throws(CadenceError) -> ExperimentResult {
        let checks = switch self {
        case .unconnectedTimer: try Self.unconnectedTimer()
        case .autoconnectSharing: try Self.autoconnectSharing()
        case .runLoopModes: try Self.runLoopModes()
        case .blockedThread: try Self.blockedThread()
        case .tolerance: try Self.tolerance()
        case .loopNotRun: try Self.loopNotRun()
        case .virtualCountdown: try Self.virtualCountdown()
        case .poller: try Self.poller()
        }
        return checks.result(name, note: note)
    }

    /// A 0.05 s timer that is subscribed but not connected fires 0 times in 0.3 s, 5 to 7 times
    /// in 0.31 s once connected, and 0 times in the 0.2 s after the connection is cancelled.
    private static func unconnectedTimer() throws(CadenceError) -> Checks {
        let loop = try Loop()
        defer { try? loop.close() }
        nonisolated(unsafe) var ticks = 0
        let timer = try TimerPublisher(every: 0.05, on: loop, in: .common)
        let handle = timer.sink { _ in ticks += 1 }
        try loop.run(for: 0.3)
        let unconnected = ticks
        let connection = timer.connect()
        try loop.run(for: 0.31)
        let connected = ticks - unconnected
        connection.cancel()
        try loop.run(for: 0.2)
        let afterCancel = ticks - unconnected - connected
        handle.cancel()

        var checks = Checks()
        checks.add("\(unconnected) ticks subscribed, unconnected", expected: "0", unconnected == 0)
        checks.add("\(connected) ticks in 0.31 s connected", expected: "5…7", (5...7).contains(connected))
        checks.add("\(afterCancel) ticks after cancel", expected: "0", afterCancel == 0)
        return checks
    }

    /// An autoconnected 0.1 s timer: a subscriber joining after 0.25 s gets a subset of the early
    /// one's fire dates; with both gone nothing ticks for 0.3 s; a new subscriber restarts it.
    private static func autoconnectSharing() throws(CadenceError) -> Checks {
        let loop = try Loop()
        defer { try? loop.close() }
        nonisolated(unsafe) var earlyDates: [Date] = []
        nonisolated(unsafe) var lateDates: [Date] = []
        let shared = try TimerPublisher(every: 0.1, on: loop, in: .common).autoconnect()
        let early = shared.sink { earlyDates.append($0) }
        try loop.run(for: 0.25)
        let late = shared.sink { lateDates.append($0) }
        try loop.run(for: 0.3)
        early.cancel()
        late.cancel()
        let beforeIdle = earlyDates.count + lateDates.count
        try loop.run(for: 0.3)
        let idleTicks = earlyDates.count + lateDates.count - beforeIdle
        nonisolated(unsafe) var restarted = 0
        let again = shared.sink { _ in restarted += 1 }
        try loop.run(for: 0.35)
        again.cancel()

        let subset = Set(lateDates).isSubset(of: Set(earlyDates))
        var checks = Checks()
        checks.add("early \(earlyDates.count), late \(lateDates.count) ticks", expected: "early > late > 0",
                   earlyDates.count > lateDates.count && !lateDates.isEmpty)
        checks.add("late one's dates all among the early one's: \(subset ? "yes" : "no")", expected: "yes",
                   subset)
        checks.add("\(idleTicks) ticks in 0.3 s after both cancel", expected: "0", idleTicks == 0)
        checks.add("\(restarted) ticks for a new subscriber", expected: "≥ 2", restarted >= 2)
        return checks
    }

    /// While the loop runs 0.5 s in a custom mode registered with `addCommonMode`, a 0.05 s
    /// timer in `.default` fires 0 times and one in `.common` at least 8 times.
    private static func runLoopModes() throws(CadenceError) -> Checks {
        let loop = try Loop()
        defer { try? loop.close() }
        let tracking = RunLoopMode("ExampleTrackingMode")
        try loop.addCommonMode(tracking)
        nonisolated(unsafe) var defaultTicks = 0
        nonisolated(unsafe) var commonTicks = 0
        let defaultHandle = try TimerPublisher(every: 0.05, on: loop, in: .default).autoconnect()
            .sink { _ in defaultTicks += 1 }
        let commonHandle = try TimerPublisher(every: 0.05, on: loop, in: .common).autoconnect()
            .sink { _ in commonTicks += 1 }
        try loop.run(mode: tracking, for: 0.5)
        defaultHandle.cancel()
        commonHandle.cancel()

        var checks = Checks()
        checks.add("\(defaultTicks) ticks of the .default timer", expected: "0", defaultTicks == 0)
        checks.add("\(commonTicks) ticks of the .common timer", expected: "≥ 8", commonTicks >= 8)
        return checks
    }

    /// A 0.1 s timer runs 0.25 s, the thread sleeps 0.55 s without running the loop, then the
    /// loop runs 0.35 s: one long gap between fire dates, the late tick reports the ticks it
    /// skipped, and "ticks × interval" falls short of the elapsed time by more than 0.3 s.
    private static func blockedThread() throws(CadenceError) -> Checks {
        let interval = 0.1
        let loop = try Loop()
        defer { try? loop.close() }
        nonisolated(unsafe) var ticks: [TimerTick] = []
        let timer = try TimerPublisher(every: interval, on: loop, in: .common).autoconnect()
        let start = loop.now
        let subscription = timer.subscribe { ticks.append($0) }
        try loop.run(for: 0.25)
        ThreadTime.block(seconds: 0.55)
        try loop.run(for: 0.35)
        subscription.cancel()

        let dates = ticks.map(\.fireDate)
        let gaps = zip(dates.dropFirst(), dates).map { $0.timeIntervalSince($1) }
        let largestGap = gaps.max() ?? 0
        let longGaps = gaps.filter { $0 > 1.5 * interval }.count
        let skipped = ticks.map(\.skipped).max() ?? 0
        let gapInTicks = Int((largestGap / interval).rounded())
        let tickBased = Double(dates.count) * interval
        let elapsed = dates.last.map { $0.timeIntervalSince(start) } ?? 0
        let undercount = elapsed - tickBased

        var checks = Checks()
        checks.add("gaps between fire dates: " + gaps.map(Format.wholeMilliseconds).joined(separator: " ")
                   + " ms", expected: "one > 500 ms", largestGap > 0.5 && longGaps == 1)
        checks.add("the late fire skipped \(skipped) ticks", expected: "≥ 5 (gap ÷ interval − 1)",
                   skipped >= 5 && skipped == gapInTicks - 1)
        checks.add("ticks × interval \(Format.fixed(tickBased, 2)) s, elapsed \(Format.fixed(elapsed, 2)) s: "
                   + "\(Format.fixed(undercount, 2)) s short", expected: "> 0.30 s short", undercount > 0.3)
        return checks
    }

    /// A 0.1 s timer with 0.05 s tolerance runs 1.05 s: at least 9 fires, each between 0 and
    /// 50 ms after its fire date (a fresh clock read in the callback minus the fire date).
    private static func tolerance() throws(CadenceError) -> Checks {
        let loop = try Loop()
        defer { try? loop.close() }
        nonisolated(unsafe) var latenesses: [Double] = []
        let timer = try TimerPublisher(every: 0.1, tolerance: 0.05, on: loop, in: .common).autoconnect()
        let subscription = timer.subscribe { tick in
            latenesses.append(loop.now.timeIntervalSince(tick.fireDate))
        }
        try loop.run(for: 1.05)
        subscription.cancel()

        let earliest = latenesses.min() ?? 0
        let latest = latenesses.max() ?? 0
        var checks = Checks()
        checks.add("\(latenesses.count) fires in 1.05 s", expected: "≥ 9", latenesses.count >= 9)
        checks.add("lateness \(Format.milliseconds(earliest))…\(Format.milliseconds(latest)) ms",
                   expected: "0…50 ms", earliest >= 0 && latest <= 0.05)
        return checks
    }

    /// A connected 0.05 s timer on a loop that nobody runs fires 0 times over 0.3 s of plain
    /// sleeping. Running the loop for 0 s afterwards shows the timer was armed: it fires once,
    /// late, reporting the ticks it skipped.
    private static func loopNotRun() throws(CadenceError) -> Checks {
        let loop = try Loop()
        defer { try? loop.close() }
        nonisolated(unsafe) var ticks: [TimerTick] = []
        let timer = try TimerPublisher(every: 0.05, on: loop, in: .default)
        let subscription = timer.subscribe { ticks.append($0) }
        let connection = timer.connect()
        ThreadTime.block(seconds: 0.3)
        let whileAsleep = ticks.count
        try loop.run(for: 0)
        let onRun = ticks.count - whileAsleep
        connection.cancel()
        subscription.cancel()

        let skipped = ticks.last?.skipped ?? 0
        var checks = Checks()
        checks.add("\(whileAsleep) ticks in 0.3 s, loop not run", expected: "0", whileAsleep == 0)
        checks.add("then run(for: 0): \(onRun) fire", expected: "1", onRun == 1)
        checks.add("  that fire skipped \(skipped) ticks", expected: "≥ 5", skipped >= 5)
        return checks
    }

    /// The seed's countdown: 3 s with 0.25 s ticks on a virtual scheduler advanced by 1.2, 1.5
    /// and 2 s gives exactly the seed's events, and its timers are gone once it has finished.
    private static func virtualCountdown() throws(CadenceError) -> Checks {
        let clock = VirtualScheduler()
        let countdown = clock.countdown(to: clock.now.addingTimeInterval(3), tick: 0.25)
        let recorder = try TimelineRecorder(countdown, scheduler: clock)
        for step in [1.2, 1.5, 2] { try clock.advance(by: step) }
        let events = recorder.events
        let expected = ["3@0", "2@1000", "1@2000", "0@3000", "|@3000"]

        // In words ("3 at 0 ms", "finished at 3000 ms"), two events a line to keep the columns narrow.
        func lines(_ events: [String]) -> String {
            let words = events.map(Self.inWords)
            return stride(from: 0, to: words.count, by: 2)
                .map { words[$0..<min($0 + 2, words.count)].joined(separator: ", ") }
                .joined(separator: ",\n")
        }
        var checks = Checks()
        checks.add(lines(events), expected: lines(expected), events == expected)
        checks.add("\(clock.pendingCount) timers left after the finish", expected: "0", clock.pendingCount == 0)
        return checks
    }

    /// A ``TimelineRecorder`` event in words: `3@1000` is `3 at 1000 ms`, `|@3000` is
    /// `finished at 3000 ms`.
    static func inWords(_ event: String) -> String {
        guard let at = event.lastIndex(of: "@") else { return event }
        let value = event[..<at]
        let time = event[event.index(after: at)...]
        return (value == "|" ? "finished" : String(value)) + " at \(time) ms"
    }

    /// The seed's exercise, a ``Poller`` every 30 s in virtual time: polls at 30, 60 and 90 s in
    /// 90 s; none while inactive (from 40 to 100 s); one at once when active again; with 45 s
    /// responses, polls at 30, 90 and 150 s in 200 s and never two running; and the poll timer
    /// is handed a tolerance of 3 s (10 %) by default, as a scheduler that records it sees.
    private static func poller() throws(CadenceError) -> Checks {
        func seconds(_ times: [Int]) -> String { times.map(String.init).joined(separator: " ") }
        var checks = Checks()

        let clock = VirtualScheduler()
        let probe = SchedulerProbe(clock)
        let steady = PollLog()
        let plain = try Poller(every: 30, on: probe) { done in
            steady.start(at: probe.now)
            steady.end()
            done()
        }
        try clock.advance(by: 90)
        plain.cancel()
        checks.add("polls at \(seconds(steady.starts)) s in 90 s", expected: "30 60 90",
                   steady.starts == [30, 60, 90])

        let paused = PollLog()
        let pauseClock = VirtualScheduler()
        let pausing = try Poller(every: 30, on: pauseClock) { done in
            paused.start(at: pauseClock.now)
            paused.end()
            done()
        }
        try pauseClock.advance(by: 40)
        let before = paused.starts.count
        pausing.setActive(false)
        try pauseClock.advance(by: 60)
        let whileInactive = paused.starts.count - before
        pausing.setActive(true)
        try pauseClock.advance(by: 0)
        let resumed = paused.starts.dropFirst(before)
        pausing.cancel()
        checks.add("\(whileInactive) polls while inactive 40…100 s", expected: "0", whileInactive == 0)
        checks.add("active at 100 s: poll at \(seconds(Array(resumed))) s", expected: "100 (at once)",
                   Array(resumed) == [100])

        let slow = PollLog()
        let slowClock = VirtualScheduler()
        let slowPoller = try Poller(every: 30, on: slowClock) { done in
            slow.start(at: slowClock.now)
            _ = try? slowClock.schedule(after: slowClock.now.addingTimeInterval(45), tolerance: 0) {
                slow.end()
                done()
            }
        }
        try slowClock.advance(by: 200)
        slowPoller.cancel()
        checks.add("45 s response: polls at \(seconds(slow.starts)) s", expected: "30 90 150",
                   slow.starts == [30, 90, 150])
        checks.add("  at most \(slow.mostRunning) poll running", expected: "1", slow.mostRunning == 1)

        let tolerance = probe.repeating.first?.tolerance
        checks.add("tolerance handed on: \(tolerance.map(Format.seconds) ?? "none") s", expected: "3 s (10 %)",
                   tolerance == 3)
        return checks
    }
}

/// When the polls of a tour experiment started, in whole virtual seconds, and how many ran at once.
private final class PollLog: @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`:
    private var started: [Int] = []
    private var running = 0
    private var most = 0

    /// The start times, in order.
    var starts: [Int] { lock.withLock { started } }

    /// The most polls that were running at once.
    var mostRunning: Int { lock.withLock { most } }

    func start(at date: Date) {
        lock.withLock {
            started.append(Int(date.timeIntervalSince1970.rounded()))
            running += 1
            most = max(most, running)
        }
    }

    func end() { lock.withLock { running -= 1 } }
}
