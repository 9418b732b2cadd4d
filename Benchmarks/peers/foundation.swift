// foundation.swift - the Foundation peer: Timer on the current RunLoop, measured with the metric
// definitions of docs/BENCHMARKS.md ("What each figure means"). One group per process.
// Build: swiftc -O -swift-version 5 -parse-as-library \
//          ../swift/Sources/CadenceBench/Common.swift foundation.swift
//        (the Swift column's helpers: one definition of the clock, CPU time, RSS and percentiles)
// Run:   foundation ops|lat|idle|wake|mem
//
// Every timer is added to a mode of its own: RunLoop.run(mode:before:) returns once that mode has
// no timer left, which ends each phase without a stop timer. Timers are made with
// Timer(fire:interval:repeats:block:): on Linux, Timer(timeInterval:repeats:block:) puts the first
// fire date at now, so it would fire at once.
import Foundation

let impl = "foundation"
let benchMode = RunLoop.Mode("cadence.bench.foundation")
// The timers' blocks run on the main thread's run loop, as does everything else: no lock needed.
nonisolated(unsafe) var fires = 0
nonisolated(unsafe) var fireTimes = [UInt64]()
nonisolated(unsafe) var wakeTimers = [Timer]()

/// Runs the bench mode until it holds no timer.
func runUntilEmpty() { _ = RunLoop.current.run(mode: benchMode, before: .distantFuture) }

/// Adds a timer due `delay` seconds from now, repeating every `interval` seconds if it is > 0.
@discardableResult
func addTimer(_ delay: TimeInterval, interval: TimeInterval = 0, _ block: @escaping @Sendable (Timer) -> Void) -> Timer {
    let timer = Timer(fire: Date(timeIntervalSinceNow: delay), interval: interval, repeats: interval > 0, block: block)
    RunLoop.current.add(timer, forMode: benchMode)
    return timer
}

let countFire: @Sendable (Timer) -> Void = { _ in fires += 1 }

func ops(rounds: Int) {
    let n = 100_000
    var rng = XorShift()
    var start = [Double](), stop = [Double](), startCPU = [Double](), stopCPU = [Double](), fire = [Double]()
    let began = monoNs()
    while start.count < rounds && (start.isEmpty || monoNs() - began < argBudgetNs()) {
        let delays = (0..<n).map { _ in 1 + rng.unit() }  // [1 s, 2 s), ns resolution
        let order = rng.perm(n)
        var timers = [Timer]()
        timers.reserveCapacity(n)
        var cpu0 = cpuNs()
        var t0 = monoNs()
        for d in delays { timers.append(addTimer(d, countFire)) }
        var t1 = monoNs()
        sleepMs(200)
        start.append(Double(t1 - t0) / Double(n))
        startCPU.append((cpuNs() - cpu0) / Double(n))

        cpu0 = cpuNs()
        t0 = monoNs()
        for i in order { timers[i].invalidate() }
        _ = RunLoop.current.run(mode: benchMode, before: Date())  // the one non-blocking turn
        t1 = monoNs()
        sleepMs(200)
        stop.append(Double(t1 - t0) / Double(n))
        stopCPU.append((cpuNs() - cpu0) / Double(n))
        timers.removeAll()

        fires = 0
        for _ in 0..<n { addTimer(rng.unit() * 0.001, countFire) }  // all due within 1 ms
        t0 = monoNs()
        runUntilEmpty()
        t1 = monoNs()
        guard fires == n else { log("fired \(fires) of \(n) timers"); exit(1) }
        fire.append(Double(t1 - t0) / Double(n))
        log("round \(fire.count - 1): start \(start.last!) stop \(stop.last!) fire \(fire.last!) ns")
    }
    emit(impl, "start_ns", n, median(start), "ns/op")
    emit(impl, "stop_ns", n, median(stop), "ns/op")
    emit(impl, "start_cpu_ns", n, median(startCPU), "ns/op")
    emit(impl, "stop_cpu_ns", n, median(stopCPU), "ns/op")
    emit(impl, "fire_ns", n, median(fire), "ns/fire")
}

func lat() {
    fireTimes.reserveCapacity(300)
    let t0 = monoNs()
    addTimer(0.01, interval: 0.01) { timer in  // Timer's own repeat, which keeps the grid
        fireTimes.append(monoNs())
        if fireTimes.count == 300 { timer.invalidate() }
    }
    runUntilEmpty()
    reportLateness(impl, fireTimes, t0: t0, periodNs: 10_000_000)
}

func idle() {
    fires = 0
    let cpu0 = cpuNs()
    addTimer(1, interval: 1) { timer in
        fires += 1
        if fires == 5 { timer.invalidate() }
    }
    runUntilEmpty()
    emit(impl, "idle_cpu_ms", 5, (cpuNs() - cpu0) / 1e6, "ms")
}

func wake() {
    var rng = XorShift()
    fires = 0
    let switches0 = voluntarySwitches(), t0 = monoNs()
    for _ in 0..<1000 {
        let timer = addTimer(rng.unit(), interval: 1, countFire)
        timer.tolerance = 0.1  // 10 %; swift-corelibs-foundation reads it back as 0 (unused)
        wakeTimers.append(timer)
    }
    addTimer(5) { _ in wakeTimers.forEach { $0.invalidate() } }
    runUntilEmpty()
    let seconds = Double(monoNs() - t0) / 1e9
    emit(impl, "wakeups_per_s", 1000, Double(voluntarySwitches() - switches0) / seconds, "1/s")
    emit(impl, "wake_fires", 1000, Double(fires), "count")
    log("Timer.tolerance read back: \(wakeTimers[0].tolerance)")
}

func mem() {
    let n = 1_000_000
    let rss0 = rssBytes()
    var timers = [Timer]()  // the references a caller keeps count too
    timers.reserveCapacity(n)
    for _ in 0..<n { timers.append(addTimer(3600, countFire)) }
    emit(impl, "bytes_per_timer", n, Double(rssBytes() - rss0) / Double(n), "B/timer")
    withExtendedLifetime(timers) {}
}

/// Before lat, idle and wake: one 1 ms one-shot run to completion (the run loop's set-up).
func warmUp() {
    addTimer(0.001) { _ in }
    runUntilEmpty()
}

@main enum FoundationPeer {
    static func main() {
        switch CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "ops" {
        case "ops": ops(rounds: argRounds())
        case "lat": warmUp(); lat()
        case "idle": warmUp(); idle()
        case "wake": warmUp(); wake()
        case "mem": mem()
        case let group: log("unknown group \(group) (ops, lat, idle, wake, mem)"); exit(2)
        }
    }
}
