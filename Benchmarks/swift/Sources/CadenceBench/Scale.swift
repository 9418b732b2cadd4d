// The scale and timeout groups: cost per operation as the number of armed timers grows, with the
// tail of batches as well as the mean (docs/BENCHMARKS.md, "Scaling"). The C program's `scale` and
// `timeout` are the same measurements through the C API.
import Cadence
import Glibc

/// Operations per timed batch: one sample of the percentiles.
let scaleBatch = 1000
/// The thread's CPU time at every `scaleBatch`-th fire. Only the main thread, which runs the
/// loop, touches it (as `fired`).
nonisolated(unsafe) var fireStamps = [UInt64]()

/// The thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID): what a batch itself costs, page faults
/// and cache misses included, without the time the thread was preempted (most of the tail on a
/// shared machine).
func threadNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Prints `op`'s mean and the p50, p99 and p99.9 (nearest rank) of its batches.
func emitBatches(_ op: String, _ n: Int, _ batches: [Double], mean: Double) {
    let sorted = batches.sorted()
    emit(impl, "\(op)_ns", n, mean, "ns/op")
    guard !sorted.isEmpty else { return }
    emit(impl, "\(op)_p50_ns", n, pct(sorted, 50), "ns/op")
    emit(impl, "\(op)_p99_ns", n, pct(sorted, 99), "ns/op")
    let rank = (999 * sorted.count + 999) / 1000
    emit(impl, "\(op)_p999_ns", n, sorted[max(rank, 1) - 1], "ns/op")
}

/// Start, stop and fire at `n` timers: max(3, min(25, 1e6/N)) rounds, none begun after the budget
/// (the first always). The mean of each operation is the median over the rounds of its wall-clock
/// mean (the stop's includes the non-blocking pass after the cancels); the percentiles are of its
/// batches of `scaleBatch` operations, in the thread's CPU time.
func scale(_ n: Int) {
    let rounds = max(3, min(25, 1_000_000 / n))
    var rng = XorShift()
    var st = [Double](), sp = [Double](), fi = [Double]()
    var bs = [Double](), bp = [Double](), bf = [Double]()
    var delays = [Double](repeating: 0, count: n)
    var timers = [ScheduledTimer]()
    timers.reserveCapacity(n)
    fireStamps.reserveCapacity(n / scaleBatch + 1)
    let began = monoNs(), budget = argBudgetNs()
    for r in 0..<rounds where r == 0 || monoNs() - began < budget {
        for i in 0..<n { delays[i] = 1.0 + rng.unit() }
        let perm = rng.perm(n)
        fired = 0
        let rss0 = r == 0 ? rssBytes() : 0
        var a = monoNs()
        for start in stride(from: 0, to: n, by: scaleBatch) {
            let end = min(start + scaleBatch, n), c = threadNs()
            for i in start..<end { timers.append(try! loop.schedule(after: delays[i]) { _ in fired += 1 }) }
            bs.append(Double(threadNs() - c) / Double(end - start))
        }
        st.append(Double(monoNs() - a) / Double(n))
        // The first round's starts on a fresh loop: resident bytes per armed timer, its 16-byte
        // handle (`ScheduledTimer`) included.
        if r == 0 { emit(impl, "armed_bytes_per_timer", n, Double(rssBytes() - rss0) / Double(n), "B/timer") }
        a = monoNs()
        for start in stride(from: 0, to: n, by: scaleBatch) {
            let end = min(start + scaleBatch, n), c = threadNs()
            for i in perm[start..<end] { timers[i].cancel() }
            bp.append(Double(threadNs() - c) / Double(end - start))
        }
        try! loop.run(for: 0)  // one non-blocking pass, so lazy clean-up is paid for
        sp.append(Double(monoNs() - a) / Double(n))
        if fired != 0 { log("a stopped timer fired"); exit(1) }
        timers.removeAll(keepingCapacity: true)
        for i in 0..<n { delays[i] = rng.unit() * 1e-3 }
        fired = 0
        target = n
        fireStamps.removeAll(keepingCapacity: true)
        for i in 0..<n {
            timers.append(try! loop.schedule(after: delays[i]) { _ in
                fired += 1
                if fired % scaleBatch == 0 { fireStamps.append(threadNs()) }
                if fired == target { loop.stop() }
            })
        }
        let c0 = threadNs()
        a = monoNs()
        try! loop.run(for: 60)
        fi.append(Double(monoNs() - a) / Double(n))
        if fired != n { log("fired \(fired) of \(n)"); exit(1) }
        var last = c0
        for stamp in fireStamps {
            bf.append(Double(stamp - last) / Double(scaleBatch))
            last = stamp
        }
        timers.removeAll(keepingCapacity: true)
        log("round \(r) at N=\(n): start \(st[r]) stop \(sp[r]) fire \(fi[r]) ns")
    }
    emitBatches("start", n, bs, mean: median(st))
    emitBatches("stop", n, bp, mean: median(sp))
    emitBatches("fire", n, bf, mean: median(fi))
}

/// The timeout pattern of a server: `n` one-shots live, due 10 to 20 s ahead; then 2n steps, each
/// cancelling the oldest live timer before it fires and starting a new one (a request that ended
/// in time, and the next one). ns per step (a cancel and a start), in batches of `scaleBatch` steps
/// with a non-blocking pass after each (the turn a server's loop makes).
func timeoutPattern(_ n: Int) {
    var rng = XorShift()
    var timers = [ScheduledTimer]()
    timers.reserveCapacity(n)
    fired = 0
    for _ in 0..<n { timers.append(try! loop.schedule(after: 10 + 10 * rng.unit()) { _ in fired += 1 }) }
    var batches = [Double]()
    let steps = 2 * n, a = monoNs()
    for start in stride(from: 0, to: steps, by: scaleBatch) {
        let c = threadNs()
        for step in start..<(start + scaleBatch) {
            let i = step % n
            timers[i].cancel()
            timers[i] = try! loop.schedule(after: 10 + 10 * rng.unit()) { _ in fired += 1 }
        }
        try! loop.run(for: 0)
        batches.append(Double(threadNs() - c) / Double(scaleBatch))
    }
    let mean = Double(monoNs() - a) / Double(batches.count * scaleBatch)
    if fired != 0 { log("a cancelled timer fired"); exit(1) }
    emitBatches("timeout", n, batches, mean: mean)
    for timer in timers { timer.cancel() }
}
