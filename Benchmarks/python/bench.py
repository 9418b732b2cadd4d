#!/usr/bin/env python3
"""bench.py - Cadence's Python bindings measured with the timer peers' metric definitions.

Definitions: docs/BENCHMARKS.md ("What each figure means"). One JSON line per metric on stdout,
one group per process.
Run: python bench.py {ops|lat|idle|wake|mem}   (also: python bench.py scale N, with the batch
     percentiles of Benchmarks/c/bench.c's scale N)
     python bench.py asyncio {lat|idle|wake}      (the loop attached to asyncio, no thread)

The code follows Benchmarks/peers/asyncio_peer.py where it can, so the two columns compare the
libraries, not the benchmark code: one-shots are ``loop.schedule(delay, callback)`` (a
``ScheduledTimer`` each, kept in a list) and ``ScheduledTimer.cancel()``; deadlines have ns
resolution. A repeating timer is ``loop.schedule(delay, callback, interval=...)`` (Swift's
``schedule(after:interval:)``): Cadence keeps the grid, nothing is rescheduled from Python.

The binding is found as the tests find it: ``bindings/python/src`` of this checkout, which loads
``CADENCE_LIBRARY`` or ``build/libcadence.so``.
"""

import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import sys
import time

sys.path.insert(
    0,
    os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python", "src"
    ),
)
import cadence  # noqa: E402

#: "asyncio": the same programs with the loop attached to an asyncio loop (Loop.attach_asyncio),
#: which runs it instead of Loop.run.
ASYNCIO = sys.argv[1:2] == ["asyncio"]
IMPL = "cadence-py-asyncio" if ASYNCIO else "cadence-py"
GROUP = sys.argv[1 + ASYNCIO] if len(sys.argv) > 1 + ASYNCIO else "ops"
ROUNDS = int(os.environ.get("PEER_ROUNDS", "3"))
BUDGET_NS = float(os.environ.get("PEER_BUDGET_S", "8")) * 1e9
now = time.monotonic_ns  # CLOCK_MONOTONIC, like every peer


def emit(metric, n, value, unit):
    print(
        json.dumps({"impl": IMPL, "metric": metric, "n": n, "value": value, "unit": unit}),
        flush=True,
    )


def cpu_ns():
    r = resource.getrusage(resource.RUSAGE_SELF)  # whole process
    return (r.ru_utime + r.ru_stime) * 1e9


def nvcsw():
    return resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGESIZE")


def median(v):
    return sorted(v)[len(v) // 2]


def pct(s, p):  # nearest rank, integers: index = ceil(p*n/100) - 1
    return s[max((p * len(s) + 99) // 100, 1) - 1]


def report_lateness(ts, t0, period_ns):
    n = len(ts)
    lat = sorted((ts[k] - (t0 + (k + 1) * period_ns)) / 1e3 for k in range(n))
    emit("lateness_us_p50", n, pct(lat, 50), "us")
    emit("lateness_us_p99", n, pct(lat, 99), "us")
    emit("lateness_us_max", n, lat[-1], "us")
    emit("early_count", n, sum(1 for x in lat if x < 0), "count")
    emit("interval_us_mean", n, (ts[-1] - ts[0]) / (n - 1) / 1e3, "us")


_aloop = asyncio.new_event_loop() if ASYNCIO else None  # made once, before the warm-up
_done = None  # asyncio.Event of the attached run in progress


def run(loop, seconds):
    """Runs the loop for at most `seconds`, until stop(loop): Loop.run, or attached to the
    asyncio loop, which waits for the stop."""
    if not ASYNCIO:
        loop.run(seconds)
        return

    async def attached():
        global _done
        _done = asyncio.Event()
        with loop.attach_asyncio(), contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(_done.wait(), seconds)

    _aloop.run_until_complete(attached())


def stop(loop):
    if ASYNCIO:
        _done.set()
    else:
        loop.stop()


def noop(tick):
    pass


def ops_rounds(loop, N, rounds, settle):
    rng = random.Random(1)
    st, sp, stc, spc, fi = [], [], [], [], []
    began = now()
    for r in range(rounds):
        if r and now() - began >= BUDGET_NS:
            break
        delays = [1.0 + rng.random() for _ in range(N)]
        perm = list(range(N))
        rng.shuffle(perm)
        later = loop.schedule
        c0, a = cpu_ns(), now()
        hs = [later(d, noop) for d in delays]
        b = now()
        if settle:
            time.sleep(0.2)
        st.append((b - a) / N)
        stc.append((cpu_ns() - c0) / N)
        c0, a = cpu_ns(), now()
        for i in perm:
            hs[i].cancel()
        loop.run(0)  # one non-blocking pass, so lazy clean-up is paid for
        b = now()
        if settle:
            time.sleep(0.2)
        sp.append((b - a) / N)
        spc.append((cpu_ns() - c0) / N)
        del hs
        count = 0

        def fire(tick):
            nonlocal count
            count += 1
            if count == N:
                loop.stop()

        hs = [later(d, fire) for d in [rng.random() * 0.001 for _ in range(N)]]
        a = now()
        loop.run(60)
        b = now()
        assert count == N, count
        fi.append((b - a) / N)
        del hs
        print(
            f"round {r}: start {st[-1]:.0f} stop {sp[-1]:.0f} fire {fi[-1]:.0f} ns", file=sys.stderr
        )
    return st, sp, stc, spc, fi


def ops(loop):
    N = 100000
    st, sp, stc, spc, fi = ops_rounds(loop, N, ROUNDS, True)
    emit("start_ns", N, median(st), "ns/op")
    emit("stop_ns", N, median(sp), "ns/op")
    emit("start_cpu_ns", N, median(stc), "ns/op")
    emit("stop_cpu_ns", N, median(spc), "ns/op")
    emit("fire_ns", N, median(fi), "ns/fire")


#: Operations per timed batch of the scale group: one sample of its percentiles.
BATCH = 1000


def emit_batches(op, n, batches, mean):
    """An operation's mean and the p50, p99 and p99.9 (nearest rank) of its batches."""
    emit(f"{op}_ns", n, mean, "ns/op")
    if batches:
        ordered = sorted(batches)
        rank = max((999 * len(ordered) + 999) // 1000, 1)
        emit(f"{op}_p50_ns", n, pct(ordered, 50), "ns/op")
        emit(f"{op}_p99_ns", n, pct(ordered, 99), "ns/op")
        emit(f"{op}_p999_ns", n, ordered[rank - 1], "ns/op")


def scale(loop):
    """start, stop and fire at N timers (the C program's ``scale N``): the median over the rounds
    of each operation's mean, and the percentiles of its batches of BATCH operations in the
    thread's CPU time (``time.thread_time_ns``: preemption left out)."""
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    rng, began, clock = random.Random(1), now(), time.thread_time_ns
    st, sp, fi, bs, bp, bf = [], [], [], [], [], []
    for r in range(max(3, min(25, 1000000 // n))):
        if r and now() - began >= BUDGET_NS:
            break
        delays = [1.0 + rng.random() for _ in range(n)]
        perm = list(range(n))
        rng.shuffle(perm)
        hs, later, a = [], loop.schedule, now()
        for start in range(0, n, BATCH):
            c = clock()
            hs.extend([later(d, noop) for d in delays[start : start + BATCH]])
            bs.append((clock() - c) / len(delays[start : start + BATCH]))
        st.append((now() - a) / n)
        a = now()
        for start in range(0, n, BATCH):
            c = clock()
            for i in perm[start : start + BATCH]:
                hs[i].cancel()
            bp.append((clock() - c) / len(perm[start : start + BATCH]))
        loop.run(0)  # one non-blocking pass, so lazy clean-up is paid for
        sp.append((now() - a) / n)
        del hs
        count, stamps = 0, []

        def fire(tick):
            nonlocal count
            count += 1
            if count % BATCH == 0:
                stamps.append(clock())
            if count == n:
                loop.stop()

        hs = [later(d, fire) for d in [rng.random() * 0.001 for _ in range(n)]]
        c, a = clock(), now()
        loop.run(60)
        fi.append((now() - a) / n)
        assert count == n, count
        bf.extend((b - a) / BATCH for a, b in zip([c, *stamps], stamps))
        del hs
    emit_batches("start", n, bs, median(st))
    emit_batches("stop", n, bp, median(sp))
    emit_batches("fire", n, bf, median(fi))


def repeating(loop, interval, count, on_fire):
    """A repeating timer on Cadence's own grid, first due one interval from now; it stops the
    loop after `count` fires."""
    k = 0
    timer = None

    def tick(t):
        nonlocal k
        on_fire()
        k += 1
        if k == count:
            timer.cancel()
            stop(loop)

    timer = loop.schedule(interval, tick, interval=interval)
    return timer


def lat(loop):
    ts = []
    t0 = now()
    repeating(loop, 0.010, 300, lambda: ts.append(now()))
    run(loop, 10)
    assert len(ts) == 300, len(ts)
    report_lateness(ts, t0, 10_000_000)


def idle(loop):
    c0 = cpu_ns()
    repeating(loop, 1.0, 5, lambda: None)
    run(loop, 10)
    emit("idle_cpu_ms", 5, (cpu_ns() - c0) / 1e6, "ms")


def wake(loop):
    N = 1000
    rng = random.Random(2)
    fires = 0

    def on_fire(tick):
        nonlocal fires
        fires += 1

    s0, t0, w0 = nvcsw(), now(), loop.wakeups
    # First due at a random phase in [0, 1 s), then every second, tolerance 10 %.
    timers = [loop.schedule(rng.random(), on_fire, interval=1.0, tolerance=0.1) for _ in range(N)]
    run(loop, max(0.0, 5.0 - (now() - t0) / 1e9))
    for timer in timers:
        timer.cancel()
    secs = (now() - t0) / 1e9
    emit("wakeups_per_s", N, (nvcsw() - s0) / secs, "1/s")
    emit("wake_fires", N, fires, "count")
    emit("wakeups_counted_per_s", N, (loop.wakeups - w0) / secs, "1/s")


def mem(loop):
    N = 1000000
    # A program that arms a million timers and watches its memory opts in to the trim that hands
    # a grown table's old buffers back (off by default since 0.4; 0.3 always trimmed).
    if not os.environ.get("CADENCE_BENCH_NO_TRIM"):
        cadence.set_trim_memory(True)
    gc.collect()
    r0 = rss_bytes()
    handles = [loop.schedule(3600.0, noop) for _ in range(N)]  # kept, as the contract says
    gc.collect()
    r1 = rss_bytes()
    assert len(handles) == N
    emit("bytes_per_timer", N, (r1 - r0) / N, "B/timer")
    # Leave without tearing down a million timers one by one (not part of any metric).
    sys.stdout.flush()
    os._exit(0)


def main():
    if ASYNCIO and GROUP not in ("lat", "idle", "wake"):
        return  # measured by Loop.run alone: the same calls
    loop = cadence.Loop()
    if GROUP in ("lat", "idle", "wake"):  # warm-up: one 1 ms one-shot timer run to completion
        loop.schedule(0.001, lambda tick: stop(loop))
        run(loop, 1)
    {"ops": ops, "lat": lat, "idle": idle, "wake": wake, "mem": mem, "scale": scale}[GROUP](loop)


if __name__ == "__main__":
    main()
