import Cadence
import FoundationEssentials
import Glibc

extension Scenario {
    /// Runs the scenario on a fresh loop, virtual or real as it says, on this thread; with
    /// `hosted`, its `run` steps are made by a poll() host over the loop's descriptor, timeout and
    /// passes instead of ``Loop/run(mode:for:)-(_,Double)`` (for real-clock scenarios, which the
    /// runners run both ways so that an owned and a hosted loop cannot drift apart).
    public func run(hosted: Bool = false) -> ScenarioOutcome {
        let run = ScenarioRun(real: isReal)
        run.hosted = hosted
        var failure: String?
        for step in steps where failure == nil {
            do {
                try run.perform(step)
            } catch {
                failure = "\(step.text("do") ?? "?"): \(error)"
            }
            failure = failure ?? run.error
        }
        try? run.loop.close()
        return ScenarioOutcome(checks: run.checks, error: failure)
    }
}

/// What one subscription, timer, countdown or poller delivered.
private struct Record {
    var events: [String] = []
    var dates: [Double] = []
    var ran: [Int] = []
    var lateness: [Double] = []  // ms
    var skipped: [Int] = []
    var checked = 0  // events at the last expect that named this record
}

private enum Object {
    case publisher(TimerPublisher)
    case autoconnect(AutoconnectTimerPublisher)
    case timer(ScheduledTimer)
    case poller(Poller)
    case cancellable(any Cancellable)
}

private struct StepError: Error, CustomStringConvertible {
    let description: String
}

/// One scenario's state. Everything, callbacks included, runs on the thread that runs the
/// scenario (callbacks run inside `Loop.run`), so the unchecked Sendable is never exercised.
private final class ScenarioRun: @unchecked Sendable {
    let loop: Loop
    let real: Bool
    var hosted = false
    let origin: Double
    var objects: [String: Object] = [:]
    var records: [String: Record] = [:]
    var order: [String] = []
    var triggers: [String: [Step]] = [:]  // "name#event"
    var checks: [ScenarioCheck] = []
    var error: String?  // from a step run by a trigger inside a callback

    init(real: Bool) {
        self.real = real
        // A real loop that cannot be made leaves a virtual one, and the first step says why.
        loop = real ? ((try? Loop()) ?? Loop.virtual()) : Loop.virtual()
        origin = loop.now.timeIntervalSince1970
    }

    func ms(_ seconds: Double) -> Int { Int(((seconds - origin) * 1000).rounded()) }

    func record(_ name: String, _ label: String, date: Double, skipped: Int = 0) {
        let now = loop.now.timeIntervalSince1970
        // Never early; a Date keeps about 0.1 µs (TimerTick.fireDate), so compare to a microsecond.
        if now < date - 1e-6 { error = error ?? "\(name): \(label) ran at \(ms(now)) ms, before its fire date" }
        records[name, default: Record()].events.append("\(label)@\(ms(date))")
        records[name]!.dates.append(date)
        records[name]!.ran.append(ms(now))
        records[name]!.lateness.append((now - date) * 1000)
        records[name]!.skipped.append(skipped)
        order.append(name)
        for step in triggers.removeValue(forKey: "\(name)#\(records[name]!.events.count)") ?? [] {
            do { try perform(step) } catch { self.error = self.error ?? "\(step.text("do") ?? "?"): \(error)" }
        }
    }

    func ticks(_ name: String) -> @Sendable (TimerTick) -> Void {
        records[name] = Record()
        return { [unowned self] tick in
            record(name, String(records[name]!.events.count), date: tick.fireDate.timeIntervalSince1970,
                   skipped: tick.skipped)
        }
    }

    func mode(_ step: Step) -> RunLoopMode {
        switch step.text("mode") ?? "default" {
        case "default": .default
        case "common": .common
        case let name: RunLoopMode(name)
        }
    }

    func policy(_ step: Step) throws -> MissedTickPolicy {
        switch step.text("missed") ?? "skip" {
        case "skip": .skip
        case "burst": .burst
        case "delay": .delay
        case let other: throw StepError(description: "unknown missed-tick policy '\(other)'")
        }
    }

    func number(_ step: Step, _ key: String) throws -> Double {
        guard let value = step.number(key) else { throw StepError(description: "no number '\(key)'") }
        return value
    }

    func object(_ name: String) throws -> Object {
        guard let object = objects[name] else { throw StepError(description: "no object named '\(name)'") }
        return object
    }

    func perform(_ step: Step) throws {
        if real, loop.isVirtual { throw StepError(description: "cannot create a real loop") }
        let name = step.text("name") ?? ""
        switch step.text("do") ?? "" {
        case "publish":
            let publisher = try TimerPublisher(every: try number(step, "interval"),
                                               tolerance: step.number("tolerance") ?? 0, on: loop, in: mode(step),
                                               missedTicks: try policy(step))
            objects[name] = step.flag("autoconnect") ? .autoconnect(publisher.autoconnect()) : .publisher(publisher)
        case "subscribe":
            let receive = ticks(name)
            switch try object(step.text("to") ?? "") {
            case .publisher(let publisher): objects[name] = .cancellable(publisher.subscribe(receive))
            case .autoconnect(let publisher): objects[name] = .cancellable(publisher.subscribe(receive))
            default: throw StepError(description: "subscribe: not a publisher")
            }
        case "connect":
            guard case .publisher(let publisher) = try object(step.text("to") ?? "") else {
                throw StepError(description: "connect: not a connectable publisher")
            }
            objects[name] = .cancellable(publisher.connect())
        case "cancel":
            switch try object(name) {
            case .timer(let timer): timer.cancel()
            case .poller(let poller): poller.cancel()
            case .cancellable(let cancellable): cancellable.cancel()
            default: throw StepError(description: "cancel: '\(name)' is a publisher")
            }
        case "schedule":
            let receive = ticks(name)
            let after = try number(step, "after"), tolerance = step.number("tolerance") ?? 0
            if let interval = step.number("interval") {
                objects[name] = .timer(try loop.schedule(after: after, interval: interval, tolerance: tolerance,
                                                         in: mode(step), missedTicks: try policy(step), receive))
            } else {
                objects[name] = .timer(try loop.schedule(after: after, tolerance: tolerance, in: mode(step), receive))
            }
        case "reset":
            guard case .timer(let timer) = try object(name) else { throw StepError(description: "reset: not a timer") }
            try timer.reset(after: try number(step, "after"))
        case "countdown":
            records[name] = Record()
            let deadline = loop.now.addingTimeInterval(try number(step, "deadline"))
            let countdown = loop.countdown(to: deadline, tick: try number(step, "tick"))
            objects[name] = .cancellable(try countdown.subscribe { [unowned self] event in
                let now = loop.now.timeIntervalSince1970
                switch event {
                case .value(let remaining): record(name, String(remaining), date: now)
                case .finished: record(name, "|", date: now)
                }
            })
        case "poller":
            records[name] = Record()
            let busy = step.number("busy") ?? 0
            objects[name] = .poller(try Poller(every: try number(step, "interval"), tolerance: step.number("tolerance"),
                                               on: loop) { [unowned self] done in
                record(name, String(records[name]!.events.count + 1), date: loop.now.timeIntervalSince1970)
                if busy > 0 {
                    do { try loop.schedule(after: busy, in: .common) { _ in done() } } catch { self.error = "\(error)" }
                } else {
                    done()
                }
            })
        case "active":
            guard case .poller(let poller) = try object(name) else { throw StepError(description: "active: not a poller") }
            poller.setActive(step.flag("value"))
        case "add_mode":
            try loop.addMode(mode(step))
        case "add_common_mode":
            try loop.addCommonMode(mode(step))
        case "run":
            if hosted {
                try runHosted(mode: mode(step), for: try number(step, "for"))
            } else {
                try loop.run(mode: mode(step), for: try number(step, "for"))
            }
        case "block":
            let seconds = try number(step, "for")
            if real {
                var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
                var remaining = timespec()
                while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
            } else {
                try loop.jumpClock(by: seconds)
            }
        case "on":
            var then = step
            then.fields = step.fields.map { field in
                switch field.key {
                case "do": (field.key, .text(step.text("then") ?? ""))
                case "name": (field.key, .text(step.text("target") ?? name))
                default: field
                }
            }
            triggers["\(name)#\(Int(try number(step, "event")))", default: []].append(then)
        case "expect":
            try expect(step, name: name)
        case let other:
            throw StepError(description: "unknown step '\(other)'")
        }
    }

    func expect(_ step: Step, name: String) throws {
        let record = records[name] ?? Record()
        func same(_ what: String, _ actual: String) {
            let want = step.text(what) ?? ""
            let normalized = want.split(separator: " ").joined(separator: " ")
            checks.append(ScenarioCheck(subject: name, what: what, actual: actual.isEmpty ? "none" : actual,
                                        expected: want.isEmpty ? "none" : want, passed: actual == normalized))
        }
        func within(_ what: String, _ actual: Double, of subject: String = name, unit: String = "") {
            let want = step.text(what) ?? ""
            checks.append(ScenarioCheck(subject: subject, what: what, actual: Self.show(actual) + unit,
                                        expected: want + unit, passed: Self.matches(actual, want)))
        }
        // "event", "then", "target": the fields of an `on` step whose `then` is an expect.
        for (what, value) in step.fields where !["do", "name", "event", "then", "target"].contains(what) {
            switch what {
            case "timeline": same(what, record.events.joined(separator: " "))
            case "ran": same(what, record.ran.map(String.init).joined(separator: " "))
            case "skipped": same(what, record.skipped.map(String.init).joined(separator: " "))
            case "order": same(what, order.joined(separator: " "))
            case "count": within(what, Double(record.events.count))
            case "new": within(what, Double(record.events.count - record.checked))
            case "skipped_max": within(what, Double(record.skipped.max() ?? 0))
            case "lateness":
                let low = record.lateness.min() ?? 0, high = record.lateness.max() ?? 0
                checks.append(ScenarioCheck(subject: name, what: what, actual: "\(Self.show(low))…\(Self.show(high)) ms",
                                            expected: value.text.replacing("..", with: "…") + " ms",
                                            passed: record.lateness.allSatisfy { Self.matches($0, value.text) }))
            case "dates_in":
                let theirs = records[value.text]?.dates ?? []
                let all = record.dates.allSatisfy { date in theirs.contains { abs($0 - date) < 1e-6 } }
                checks.append(ScenarioCheck(subject: name, what: "dates among \(value.text)'s", actual: all ? "yes" : "no",
                                            expected: "yes", passed: all))
            case "wakeups": within(what, Double(loop.wakeups), of: "loop")
            case "armed": within(what, Double(loop.armedTimerCount), of: "loop")
            case "now": within(what, Double(ms(loop.now.timeIntervalSince1970)), of: "loop")
            case "tolerance":
                switch try object(name) {
                case .poller(let poller): within(what, poller.tolerance, unit: " s")
                case .timer(let timer): within(what, timer.tolerance ?? .nan, unit: " s")
                default: throw StepError(description: "tolerance: '\(name)' is neither a poller nor a timer")
                }
            case "fire_date":
                guard case .timer(let timer) = try object(name) else {
                    throw StepError(description: "fire_date: '\(name)' is not a timer")
                }
                same(what, timer.fireDate.map { String(ms($0.timeIntervalSince1970)) } ?? "none")
            default:
                throw StepError(description: "unknown expectation '\(what)'")
            }
        }
        records[name]?.checked = record.events.count
    }

    /// A number as a scenario writes it: whole numbers without a fraction, others to 0.1.
    static func show(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() && abs(tenths) < 1e15 ? String(Int(tenths)) : String(tenths)
    }

    /// Whether `value` matches `spec`: `N`, `A..B`, `A..` or `..B`.
    static func matches(_ value: Double, _ spec: String) -> Bool {
        let parts = spec.split(separator: "..", omittingEmptySubsequences: false)
        if parts.count == 1 { return value == Double(spec) }
        guard parts.count == 2 else { return false }
        let low = parts[0].isEmpty ? -Double.infinity : Double(parts[0]) ?? .nan
        let high = parts[1].isEmpty ? Double.infinity : Double(parts[1]) ?? .nan
        return value >= low && value <= high
    }
}

extension ScenarioRun {
    /// `loop.run(mode:for:)` as a poll() host makes it: a pass, then a wait for the descriptor or
    /// the timeout and a pass, until `seconds` have passed, the last pass at or after the end.
    fileprivate func runHosted(mode: RunLoopMode, for seconds: Double) throws {
        let descriptor = try loop.fileDescriptor()
        let end = loop.now.timeIntervalSince1970 + seconds
        try loop.runPass(mode: mode)
        while case let left = end - loop.now.timeIntervalSince1970, left > 0 {
            let wait = min(try loop.timeout() ?? .infinity, left)
            var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&watch, 1, Int32((wait * 1000).rounded(.up)))
            try loop.runPass(mode: mode)
        }
    }
}
