// CadenceBench - Cadence's Swift API measured with the metric definitions of the peers
// (docs/BENCHMARKS.md, "What each figure means"): one JSON line per metric, one group per process.
//
// Run: CadenceBench {ops|lat|idle|wake|mem}, CadenceBench scale N (start/stop/fire at N, with
// batch percentiles: Scale.swift) and CadenceBench timeout N (the timeout pattern at N live timers)
// (`wake` ends with the same wake-ups through `Task.sleep`, on a loop as the program's executor:
// TaskSleep.swift.)
//
// What is measured is the public API as an application uses it: `Loop.schedule(after:...)`
// returns a `ScheduledTimer` (a value naming a slot in the loop's timer table) and `cancel()`
// stops it. Deadlines have nanosecond resolution, so random delays are drawn in ns
// (as for Foundation, Dispatch and asyncio). Repeating timers use Cadence's own grid
// (`schedule(after:interval:)`), never a re-arm from the callback.
import Cadence
import Glibc

let impl = "cadence-swift"
let loop: Loop = {
    do { return try Loop() } catch { log("Loop() failed: \(error)"); exit(1) }
}()

var fired = 0
var target = 0

/// start, stop and fire for `n` one-shot timers, `rounds` times at most (and no new round once
/// `budget` ns have passed). With `settle`, each phase is followed by 200 ms before the CPU time is
/// read, as the contract's *_cpu_ns asks.
func opsRounds(n: Int, rounds: Int, budget: UInt64, settle: Bool)
    -> (st: [Double], sp: [Double], stc: [Double], spc: [Double], fi: [Double]) {
    var rng = XorShift()
    var st = [Double](), sp = [Double](), stc = [Double](), spc = [Double](), fi = [Double]()
    var delays = [Double](repeating: 0, count: n)
    var timers = [ScheduledTimer]()
    timers.reserveCapacity(n)  // handles kept in an array preallocated before timing
    let began = monoNs()
    for r in 0..<rounds where r == 0 || monoNs() - began < budget {
        for i in 0..<n { delays[i] = 1.0 + rng.unit() }  // [1 s, 2 s), ns resolution
        let perm = rng.perm(n)
        fired = 0
        var c0 = cpuNs(), a = monoNs()
        for i in 0..<n { timers.append(try! loop.schedule(after: delays[i]) { _ in fired += 1 }) }
        var b = monoNs()
        if settle { sleepMs(200) }
        st.append(Double(b - a) / Double(n)); stc.append((cpuNs() - c0) / Double(n))
        c0 = cpuNs(); a = monoNs()
        for i in perm { timers[i].cancel() }
        try! loop.run(for: 0)  // one non-blocking pass, so lazy clean-up is paid for
        b = monoNs()
        if settle { sleepMs(200) }
        sp.append(Double(b - a) / Double(n)); spc.append((cpuNs() - c0) / Double(n))
        if fired != 0 { log("a stopped timer fired"); exit(1) }
        timers.removeAll(keepingCapacity: true)
        // fire: every timer due within the first millisecond; the clock starts with the run
        for i in 0..<n { delays[i] = rng.unit() * 1e-3 }
        fired = 0
        target = n
        for i in 0..<n {
            timers.append(try! loop.schedule(after: delays[i]) { _ in
                fired += 1
                if fired == target { loop.stop() }
            })
        }
        a = monoNs()
        try! loop.run(for: 60)
        b = monoNs()
        if fired != n { log("fired \(fired) of \(n)"); exit(1) }
        fi.append(Double(b - a) / Double(n))
        timers.removeAll(keepingCapacity: true)
        log("round \(r): start \(st[r]) stop \(sp[r]) fire \(fi[r]) ns")
    }
    return (st, sp, stc, spc, fi)
}

func ops() {
    let n = 100_000
    let r = opsRounds(n: n, rounds: argRounds(), budget: argBudgetNs(), settle: true)
    emit(impl, "start_ns", n, median(r.st), "ns/op")
    emit(impl, "stop_ns", n, median(r.sp), "ns/op")
    emit(impl, "start_cpu_ns", n, median(r.stc), "ns/op")
    emit(impl, "stop_cpu_ns", n, median(r.spc), "ns/op")
    emit(impl, "fire_ns", n, median(r.fi), "ns/fire")
}

/// Warm-up before lat, idle and wake: one 1 ms one-shot timer run to completion.
func warmUp() {
    try! loop.schedule(after: 0.001) { _ in loop.stop() }
    try! loop.run(for: 1)
}

var latTimer: ScheduledTimer?
var stamps = [UInt64]()

func lat() {
    let count = 300
    stamps.reserveCapacity(count)
    let t0 = monoNs()
    // Cadence keeps the grid itself: one repeating 10 ms timer.
    latTimer = try! loop.schedule(after: 0.010, interval: 0.010) { _ in
        stamps.append(monoNs())
        if stamps.count == count { latTimer?.cancel(); loop.stop() }
    }
    try! loop.run(for: 10)
    reportLateness(impl, stamps, t0: t0, periodNs: 10_000_000)
}

var idleTimer: ScheduledTimer?

func idle() {
    let c0 = cpuNs()
    idleTimer = try! loop.schedule(after: 1, interval: 1) { _ in
        fired += 1
        if fired == 5 { idleTimer?.cancel(); loop.stop() }
    }
    try! loop.run(for: 10)
    emit(impl, "idle_cpu_ms", 5, (cpuNs() - c0) / 1e6, "ms")
}

func wake() {
    let n = 1000
    var rng = XorShift()
    var timers = [ScheduledTimer]()
    timers.reserveCapacity(n)
    let s0 = voluntarySwitches(), w0 = loop.wakeups, t0 = monoNs()
    for _ in 0..<n {
        timers.append(try! loop.schedule(after: rng.unit(), interval: 1, tolerance: 0.1) { _ in fired += 1 })
    }
    let left = 5.0 - Double(monoNs() - t0) / 1e9
    try! loop.run(for: max(0, left))
    for t in timers { t.cancel() }
    let secs = Double(monoNs() - t0) / 1e9
    emit(impl, "wakeups_per_s", n, Double(voluntarySwitches() - s0) / secs, "1/s")
    emit(impl, "wake_fires", n, Double(fired), "count")
    emit(impl, "wakeups_counted_per_s", n, Double(loop.wakeups - w0) / secs, "1/s")
    // The same 1000 timers (same phases) on a virtual clock: the engine's own choice of wake-ups,
    // free of the OS and of the machine's noise.
    let virtualLoop = Loop.virtual()
    var vrng = XorShift()
    var virtualTimers = [ScheduledTimer]()
    for _ in 0..<n {
        virtualTimers.append(try! virtualLoop.schedule(after: vrng.unit(), interval: 1, tolerance: 0.1) { _ in })
    }
    try! virtualLoop.run(for: 5)
    emit(impl, "wakeups_virtual_per_s", n, Double(virtualLoop.wakeups) / 5, "1/s")
    withExtendedLifetime(virtualTimers) {}
}

func mem() {
    let n = 1_000_000
    // A program that arms a million timers and watches its memory opts in to the trim that hands
    // a grown table's old buffers back (off by default since 0.4; 0.3 always trimmed).
    Loop.trimsMemory = getenv("CADENCE_BENCH_NO_TRIM") == nil
    let r0 = rssBytes()
    var timers = [ScheduledTimer]()
    timers.reserveCapacity(n)
    for _ in 0..<n { timers.append(try! loop.schedule(after: 3600) { _ in fired += 1 }) }
    let r1 = rssBytes()
    emit(impl, "bytes_per_timer", n, Double(r1 - r0) / Double(n), "B/timer")
    withExtendedLifetime(timers) {}
}

/// The loop's own memory after `n` timers armed and all cancelled, with no process-wide trim:
/// resident bytes per timer at the peak and kept once the loop has had two quiet pass ends (when
/// an emptied table gives its pages back), and the kept share of the peak.
func giveBack(_ n: Int) {
    Loop.trimsMemory = false
    let r0 = rssBytes()
    var timers = [ScheduledTimer]()
    timers.reserveCapacity(n)
    var rng = XorShift()
    for _ in 0..<n { timers.append(try! loop.schedule(after: 3600 + rng.unit()) { _ in fired += 1 }) }
    let r1 = rssBytes()
    for timer in timers { timer.cancel() }
    timers = []
    for _ in 0..<3 { try! loop.run(for: 0.001) }  // pass ends with the table empty
    let r2 = rssBytes()
    emit(impl, "giveback_peak_bytes_per_timer", n, Double(r1 - r0) / Double(n), "B/timer")
    emit(impl, "giveback_kept_bytes_per_timer", n, Double(r2 - r0) / Double(n), "B/timer")
    emit(impl, "giveback_kept_share", n, Double(r2 - r0) / Double(max(1, r1 - r0)), "of peak")
}

let args = CommandLine.arguments
switch args.count > 1 ? args[1] : "ops" {
case "ops": ops()
case "lat": warmUp(); lat()
case "idle": warmUp(); idle()
case "wake": warmUp(); wake(); taskSleepWake()
case "mem": mem()
case "scale": scale(args.count > 2 ? Int(args[2]) ?? 100_000 : 100_000)
case "giveback": giveBack(args.count > 2 ? Int(args[2]) ?? 10_000_000 : 10_000_000)
case "timeout": timeoutPattern(args.count > 2 ? Int(args[2]) ?? 1_000_000 : 1_000_000)
default: log("unknown group"); exit(2)
}
