// dispatch.swift - the Dispatch peer: DispatchSourceTimer on one serial queue, measured with the
// metric definitions of docs/BENCHMARKS.md ("What each figure means"). One group per process.
// Build: swiftc -O -swift-version 5 -parse-as-library \
//          ../swift/Sources/CadenceBench/Common.swift dispatch.swift
// Run:   dispatch ops|lat|idle|wake|mem   (wake ends with the same wake-ups through Task.sleep)
//
// Dispatch has no loop to run: a resumed source is live, and libdispatch registers and cancels it
// on its own threads, after the call returns. That work shows in start_cpu_ns and stop_cpu_ns
// (process CPU, all threads, with 200 ms to settle), not in the caller's start_ns and stop_ns.
import Dispatch
import Foundation

let impl = "dispatch"
let queue = DispatchQueue(label: "cadence.bench.dispatch")  // serial: the handlers never overlap
// Touched only by the handlers, on `queue`, or read through queue.sync.
nonisolated(unsafe) var fires = 0
nonisolated(unsafe) var fireTimes = [UInt64]()
nonisolated(unsafe) var lastFire: UInt64 = 0
let finished = DispatchSemaphore(value: 0)

/// A resumed timer source first due at `deadline`, repeating every `interval` unless .never.
func makeSource(_ deadline: DispatchTime, interval: DispatchTimeInterval = .never,
                leeway: DispatchTimeInterval = .nanoseconds(0),
                _ handler: @escaping @Sendable () -> Void) -> DispatchSourceTimer {
    let source = DispatchSource.makeTimerSource(queue: queue)
    source.schedule(deadline: deadline, repeating: interval, leeway: leeway)
    source.setEventHandler(handler: handler)
    source.resume()
    return source
}

let countFire: @Sendable () -> Void = { fires += 1 }

func ops(rounds: Int) {
    let n = 100_000
    var rng = XorShift()
    var start = [Double](), stop = [Double](), startCPU = [Double](), stopCPU = [Double](), fire = [Double]()
    let began = monoNs()
    while start.count < rounds && (start.isEmpty || monoNs() - began < argBudgetNs()) {
        let delays = (0..<n).map { _ in 1_000_000_000 + Int(rng.unit() * 1e9) }  // [1 s, 2 s) in ns
        let order = rng.perm(n)
        var sources = [DispatchSourceTimer]()
        sources.reserveCapacity(n)
        var cpu0 = cpuNs()
        var t0 = monoNs()
        for d in delays { sources.append(makeSource(.now() + .nanoseconds(d), countFire)) }
        var t1 = monoNs()
        sleepMs(200)
        start.append(Double(t1 - t0) / Double(n))
        startCPU.append((cpuNs() - cpu0) / Double(n))

        cpu0 = cpuNs()
        t0 = monoNs()
        for i in order { sources[i].cancel() }
        t1 = monoNs()
        sleepMs(200)
        stop.append(Double(t1 - t0) / Double(n))
        stopCPU.append((cpuNs() - cpu0) / Double(n))
        sources.removeAll()

        // fire: deadlines within 1 ms after a base placed beyond the set-up (three times the
        // measured start cost, plus 200 ms); the clock runs from that base to the n-th fire
        queue.sync { fires = 0 }
        let base = DispatchTime.now() + .nanoseconds(200_000_000 + Int(3 * start.last! * Double(n)))
        for _ in 0..<n {
            sources.append(makeSource(base + .nanoseconds(Int(rng.unit() * 1e6))) {
                fires += 1
                if fires == n { lastFire = monoNs(); finished.signal() }
            })
        }
        guard DispatchTime.now() < base else { log("the set-up ran past the base deadline"); exit(1) }
        finished.wait()
        fire.append(Double(queue.sync { lastFire } - base.uptimeNanoseconds) / Double(n))
        sources.forEach { $0.cancel() }
        log("round \(fire.count - 1): start \(start.last!) stop \(stop.last!) fire \(fire.last!) ns, "
            + "CPU start \(startCPU.last!) stop \(stopCPU.last!) ns")
    }
    emit(impl, "start_ns", n, median(start), "ns/op")
    emit(impl, "stop_ns", n, median(stop), "ns/op")
    emit(impl, "start_cpu_ns", n, median(startCPU), "ns/op")
    emit(impl, "stop_cpu_ns", n, median(stopCPU), "ns/op")
    emit(impl, "fire_ns", n, median(fire), "ns/fire")
}

/// The source a handler cancels itself through (set before the first fire can run).
nonisolated(unsafe) var current: DispatchSourceTimer?

func lat() {
    fireTimes.reserveCapacity(300)
    let t0 = monoNs()
    current = makeSource(.now() + .milliseconds(10), interval: .milliseconds(10)) {
        fireTimes.append(monoNs())
        if fireTimes.count == 300 { current?.cancel(); finished.signal() }
    }
    finished.wait()
    reportLateness(impl, queue.sync { fireTimes }, t0: t0, periodNs: 10_000_000)
}

func idle() {
    let cpu0 = cpuNs()
    current = makeSource(.now() + .seconds(1), interval: .seconds(1)) {
        fires += 1
        if fires == 5 { current?.cancel(); finished.signal() }
    }
    finished.wait()
    emit(impl, "idle_cpu_ms", 5, (cpuNs() - cpu0) / 1e6, "ms")
}

func wake() {
    var rng = XorShift()
    let switches0 = voluntarySwitches(), t0 = monoNs()
    var sources = [DispatchSourceTimer]()
    for _ in 0..<1000 {  // leeway 100 ms: the 10 % tolerance
        let phase = DispatchTime.now() + .nanoseconds(Int(rng.unit() * 1e9))
        sources.append(makeSource(phase, interval: .seconds(1), leeway: .milliseconds(100), countFire))
    }
    let left = 5_000_000_000 - Int64(monoNs() - t0)  // the main thread sleeps out the 5 s
    if left > 0 { usleep(UInt32(left / 1000)) }
    sources.forEach { $0.cancel() }
    let counted = queue.sync { fires }
    let seconds = Double(monoNs() - t0) / 1e9
    emit(impl, "wakeups_per_s", 1000, Double(voluntarySwitches() - switches0) / seconds, "1/s")
    emit(impl, "wake_fires", 1000, Double(counted), "count")
}

/// The `wake` group through `Task.sleep`: the Cadence benchmark's 1000 sleepers (`sleeper` in
/// Common.swift, the same phases), as detached tasks on Swift's default executor, which is
/// Dispatch on Linux; the main thread sleeps out the 5 s.
func sleepWake() {
    var rng = XorShift()
    let switches0 = voluntarySwitches(), t0 = monoNs()
    let tasks = (0..<1000).map { _ -> Task<(woke: Int, early: Int), Never> in
        let phase = rng.unit()
        return Task.detached { await sleeper(phase: phase) }
    }
    let left = 5_000_000_000 - Int64(monoNs() - t0)
    if left > 0 { usleep(UInt32(left / 1000)) }
    let switches = voluntarySwitches() - switches0, seconds = Double(monoNs() - t0) / 1e9
    tasks.forEach { $0.cancel() }
    Task.detached {
        var counts = [(woke: Int, early: Int)]()
        for task in tasks { counts.append(await task.value) }
        sleepCounts = counts
        finished.signal()
    }
    finished.wait()
    emitSleepers(impl, sleepCounts, switches: switches, seconds: seconds)
}

/// The sleepers' counts, written by the task that collects them before it signals `finished`.
nonisolated(unsafe) var sleepCounts = [(woke: Int, early: Int)]()

func mem() {
    let n = 1_000_000
    let rss0 = rssBytes()
    var sources = [DispatchSourceTimer]()
    sources.reserveCapacity(n)
    for _ in 0..<n { sources.append(makeSource(.now() + .seconds(3600), countFire)) }
    queue.sync {}
    sleepMs(500)  // registration finishes on libdispatch's manager thread
    emit(impl, "bytes_per_timer", n, Double(rssBytes() - rss0) / Double(n), "B/timer")
    withExtendedLifetime(sources) {}
}

/// Before lat, idle and wake: one 1 ms one-shot run to completion (libdispatch's threads start).
func warmUp() {
    let source = makeSource(.now() + .milliseconds(1)) { finished.signal() }
    finished.wait()
    source.cancel()
}

@main enum DispatchPeer {
    static func main() {
        switch CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "ops" {
        case "ops": ops(rounds: argRounds())
        case "lat": warmUp(); lat()
        case "idle": warmUp(); idle()
        case "wake": warmUp(); wake(); sleepWake()
        case "mem": mem()
        case let group: log("unknown group \(group) (ops, lat, idle, wake, mem)"); exit(2)
        }
    }
}
