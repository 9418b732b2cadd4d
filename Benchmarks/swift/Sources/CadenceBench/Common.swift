// Helpers of the metric definitions (clock, rusage, RSS, JSON, stats), written against Glibc only so
// that the benchmark adds nothing to Cadence's own imports. Benchmarks/run also compiles this file
// into the Foundation and Dispatch peers (Benchmarks/peers): it must not import Cadence.
import Glibc

/// CLOCK_MONOTONIC in ns: the clock every peer uses (and the one Cadence's loop reads).
@inline(__always)
func monoNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

private func usage() -> rusage {
    var r = rusage()
    getrusage(RUSAGE_SELF.rawValue, &r)  // whole process: all threads
    return r
}

/// Process CPU time (user + sys, all threads) in ns.
func cpuNs() -> Double {
    let r = usage()
    return Double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e9
        + Double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e3
}

/// Voluntary context switches of the whole process (all threads).
func voluntarySwitches() -> Int { Int(usage().ru_nvcsw) }

/// Resident set size: 2nd field of /proc/self/statm times the page size.
func rssBytes() -> Int {
    guard let f = fopen("/proc/self/statm", "r") else { fatalError("statm") }
    defer { fclose(f) }
    var size = 0, resident = 0
    guard withUnsafeMutablePointer(to: &size, { s in
        withUnsafeMutablePointer(to: &resident) { r in withVaList([s, r]) { vfscanf(f, "%ld %ld", $0) } }
    }) == 2 else { fatalError("statm") }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func sleepMs(_ ms: UInt32) { usleep(ms * 1000) }

/// xorshift64, seeded as the peers' generator.
struct XorShift {
    var s: UInt64 = 0x9E37_79B9_7F4A_7C15
    @inline(__always)
    mutating func next() -> UInt64 { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }  // [0, 1)
    mutating func perm(_ n: Int) -> [Int] {
        var p = Array(0..<n)
        var i = n - 1
        while i > 0 { let j = Int(next() % UInt64(i + 1)); p.swapAt(i, j); i -= 1 }
        return p
    }
}

func emit(_ impl: String, _ metric: String, _ n: Int, _ value: Double, _ unit: String) {
    print("{\"impl\": \"\(impl)\", \"metric\": \"\(metric)\", \"n\": \(n), \"value\": \(value), \"unit\": \"\(unit)\"}")
    fflush(stdout)
}

func log(_ s: String) {
    fputs(s + "\n", stderr)
}

func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }

/// Nearest rank: index = ceil(P*n/100) - 1, computed in integers.
func pct(_ sorted: [Double], _ p: Int) -> Double {
    let r = (p * sorted.count + 99) / 100
    return sorted[max(r, 1) - 1]
}

/// Lateness of fire k (1-based) = ts[k-1] - (t0 + k*period).
func reportLateness(_ impl: String, _ ts: [UInt64], t0: UInt64, periodNs: UInt64) {
    let n = ts.count
    var l = [Double]()
    for k in 0..<n { l.append((Double(ts[k]) - Double(t0 + UInt64(k + 1) * periodNs)) / 1e3) }
    let early = l.filter { $0 < 0 }.count
    l.sort()
    emit(impl, "lateness_us_p50", n, pct(l, 50), "us")
    emit(impl, "lateness_us_p99", n, pct(l, 99), "us")
    emit(impl, "lateness_us_max", n, l[n - 1], "us")
    emit(impl, "early_count", n, Double(early), "count")
    emit(impl, "interval_us_mean", n, Double(ts[n - 1] - ts[0]) / Double(n - 1) / 1e3, "us")
}

private func env(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

/// ops rounds: at most PEER_ROUNDS (default 3); no new round once PEER_BUDGET_S (default 8) has passed.
func argRounds() -> Int {
    let r = Int(env("PEER_ROUNDS") ?? "3") ?? 3
    return (1...16).contains(r) ? r : 3
}

func argBudgetNs() -> UInt64 {
    UInt64((Double(env("PEER_BUDGET_S") ?? "8") ?? 8) * 1e9)
}

/// One task of the `wake` group through `Task.sleep` (docs/BENCHMARKS.md): from a phase of `phase`
/// seconds, it sleeps 1 s at a time with 100 ms of tolerance (the group's 10 %) until cancelled.
/// Returns its wake-ups and how many of its sleeps returned before their deadline by the clock
/// they slept on (`ContinuousClock`, `Task.sleep`'s): the deadline is at least `asleep + duration`,
/// so a return before that is early.
func sleeper(phase: Double) async -> (woke: Int, early: Int) {
    let clock = ContinuousClock()
    var woke = 0, early = 0
    var duration = Duration.nanoseconds(Int64(phase * 1e9))
    while true {
        let asleep = clock.now
        do { try await Task.sleep(for: duration, tolerance: .milliseconds(100)) } catch { break }
        woke += 1
        if clock.now < asleep + duration { early += 1 }
        duration = .seconds(1)
    }
    return (woke, early)
}

/// The lines of the `wake` group through `Task.sleep`: voluntary context switches per second over
/// the window, the sleepers' wake-ups and their early returns.
func emitSleepers(_ impl: String, _ counts: [(woke: Int, early: Int)], switches: Int, seconds: Double) {
    emit(impl, "sleep_wakeups_per_s", counts.count, Double(switches) / seconds, "1/s")
    emit(impl, "sleep_wakes", counts.count, Double(counts.reduce(0) { $0 + $1.woke }), "count")
    emit(impl, "sleep_early_count", counts.count, Double(counts.reduce(0) { $0 + $1.early }), "count")
}
