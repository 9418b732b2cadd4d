#!/usr/bin/env python3
"""asyncio_peer.py - the asyncio and uvloop peers, one file so that both run the same code.

Metric definitions: docs/BENCHMARKS.md ("What each figure means"). One group per process, one
JSON line per metric on stdout.
Run: python asyncio_peer.py asyncio|uvloop ops|lat|idle|wake|mem   (uvloop must be importable)

One-shots are ``loop.call_later`` (a ``TimerHandle`` each, kept in a list) and
``TimerHandle.cancel()``. asyncio has no repeating timer, so a repeating one is rescheduled with
``loop.call_at`` on the grid ``start + k * period``; ``start`` comes from ``time.monotonic()``,
the clock of ``loop.time()`` in both loops. uvloop rounds deadlines to whole milliseconds of
libuv's cached loop time, asyncio keeps them in seconds as floats.
"""

import asyncio
import gc
import json
import os
import random
import resource
import sys
import time

KIND = sys.argv[1] if len(sys.argv) > 1 else "asyncio"
GROUP = sys.argv[2] if len(sys.argv) > 2 else "ops"
ROUNDS = int(os.environ.get("PEER_ROUNDS", "3"))
BUDGET_NS = float(os.environ.get("PEER_BUDGET_S", "8")) * 1e9
now_ns = time.monotonic_ns  # CLOCK_MONOTONIC


def emit(metric, n, value, unit):
    line = {"impl": KIND, "metric": metric, "n": n, "value": value, "unit": unit}
    print(json.dumps(line), flush=True)


def cpu_ns():
    usage = resource.getrusage(resource.RUSAGE_SELF)  # user + sys, all threads
    return (usage.ru_utime + usage.ru_stime) * 1e9


def voluntary_switches():
    return resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw


def rss_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGESIZE")


def median(values):
    return sorted(values)[len(values) // 2]


def rank(sorted_values, p):
    """Nearest rank: index ceil(p * n / 100) - 1, in integers."""
    return sorted_values[max((p * len(sorted_values) + 99) // 100, 1) - 1]


def nothing():
    pass


def one_turn(loop):
    """One non-blocking pass of the loop (asyncio drops cancelled handles inside it)."""
    loop.call_soon(loop.stop)
    loop.run_forever()


def ops(loop):
    n = 100_000
    rng = random.Random(7)
    start, stop, start_cpu, stop_cpu, fire = [], [], [], [], []
    began = now_ns()
    while len(start) < ROUNDS and (not start or now_ns() - began < BUDGET_NS):
        delays = [1.0 + rng.random() for _ in range(n)]  # [1 s, 2 s)
        order = list(range(n))
        rng.shuffle(order)
        call_later = loop.call_later
        cpu0, t0 = cpu_ns(), now_ns()
        handles = [call_later(d, nothing) for d in delays]
        t1 = now_ns()
        time.sleep(0.2)
        start.append((t1 - t0) / n)
        start_cpu.append((cpu_ns() - cpu0) / n)

        cpu0, t0 = cpu_ns(), now_ns()
        for i in order:
            handles[i].cancel()
        one_turn(loop)
        t1 = now_ns()
        time.sleep(0.2)
        stop.append((t1 - t0) / n)
        stop_cpu.append((cpu_ns() - cpu0) / n)
        del handles

        fired = [0]

        def count(fired=fired):
            fired[0] += 1
            if fired[0] == n:
                loop.stop()

        for d in [rng.random() * 0.001 for _ in range(n)]:  # all due within 1 ms
            call_later(d, count)
        t0 = now_ns()
        loop.run_forever()
        t1 = now_ns()
        if fired[0] != n:
            sys.exit(f"fired {fired[0]} of {n} timers")
        fire.append((t1 - t0) / n)
        print(
            f"round {len(fire) - 1}: start {start[-1]:.0f} stop {stop[-1]:.0f} "
            f"fire {fire[-1]:.0f} ns",
            file=sys.stderr,
        )
    emit("start_ns", n, median(start), "ns/op")
    emit("stop_ns", n, median(stop), "ns/op")
    emit("start_cpu_ns", n, median(start_cpu), "ns/op")
    emit("stop_cpu_ns", n, median(stop_cpu), "ns/op")
    emit("fire_ns", n, median(fire), "ns/fire")


def on_grid(loop, period, fires, action, start_ns):
    """Calls action() at start + k * period for k = 1..fires, then stops the loop."""
    start = start_ns / 1e9
    state = {"k": 0}

    def tick():
        action()
        state["k"] += 1
        if state["k"] == fires:
            loop.stop()
        else:
            loop.call_at(start + (state["k"] + 1) * period, tick)

    loop.call_at(start + period, tick)


def lat(loop):
    times = []
    t0 = now_ns()
    on_grid(loop, 0.010, 300, lambda: times.append(now_ns()), t0)
    loop.run_forever()
    n = len(times)
    late_us = sorted((times[k] - (t0 + (k + 1) * 10_000_000)) / 1e3 for k in range(n))
    emit("lateness_us_p50", n, rank(late_us, 50), "us")
    emit("lateness_us_p99", n, rank(late_us, 99), "us")
    emit("lateness_us_max", n, late_us[-1], "us")
    emit("early_count", n, sum(1 for x in late_us if x < 0), "count")
    emit("interval_us_mean", n, (times[-1] - times[0]) / (n - 1) / 1e3, "us")


def idle(loop):
    cpu0 = cpu_ns()
    on_grid(loop, 1.0, 5, nothing, now_ns())
    loop.run_forever()
    emit("idle_cpu_ms", 5, (cpu_ns() - cpu0) / 1e6, "ms")


def wake(loop):
    """1000 repeating 1 s timers at random phases (asyncio has no tolerance), stopped at 5 s."""
    rng = random.Random(11)
    handles = []
    fired = [0]
    switches0, t0 = voluntary_switches(), now_ns()
    start = t0 / 1e9

    def tick(i, due):
        fired[0] += 1
        handles[i] = loop.call_at(due + 1.0, tick, i, due + 1.0)

    for i in range(1000):
        due = start + rng.random()
        handles.append(loop.call_at(due, tick, i, due))

    def end():
        for handle in handles:
            handle.cancel()
        loop.stop()

    loop.call_at(start + 5.0, end)
    loop.run_forever()
    seconds = (now_ns() - t0) / 1e9
    emit("wakeups_per_s", 1000, (voluntary_switches() - switches0) / seconds, "1/s")
    emit("wake_fires", 1000, fired[0], "count")


def mem(loop):
    n = 1_000_000
    gc.collect()
    rss0 = rss_bytes()
    handles = [loop.call_later(3600.0, nothing) for _ in range(n)]
    gc.collect()
    emit("bytes_per_timer", n, (rss_bytes() - rss0) / n, "B/timer")
    del handles


def main():
    if KIND == "uvloop":
        import uvloop

        loop = uvloop.new_event_loop()
    elif KIND == "asyncio":
        loop = asyncio.new_event_loop()
    else:
        sys.exit(f"unknown loop {KIND} (asyncio, uvloop)")
    asyncio.set_event_loop(loop)
    groups = {"ops": ops, "lat": lat, "idle": idle, "wake": wake, "mem": mem}
    if GROUP not in groups:
        sys.exit(f"unknown group {GROUP} (ops, lat, idle, wake, mem)")
    if GROUP in ("lat", "idle", "wake"):  # one 1 ms one-shot run to completion first
        loop.call_later(0.001, loop.stop)
        loop.run_forever()
    groups[GROUP](loop)


if __name__ == "__main__":
    main()
