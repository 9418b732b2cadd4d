#!/usr/bin/env python3
"""tables.py - Markdown tables from the JSON lines of the Cadence benchmarks and the peers.

Usage:
  tables.py --peers RESULTS.jsonl [--cadence RUN.jsonl ...] [--scale SCALE.jsonl]
            [--floors FLOORS.jsonl] [--cross-check KIT.jsonl]

--peers        the peers' pass (Benchmarks/peers and the Cadence programs, one after another).
               The peer columns and the "best peer" of every ratio come from it.
--cadence      more passes of the Cadence programs alone (the same JSON lines). Each Cadence cell
               is the median (element floor(k/2) of the k sorted values, the rounds' rule) of its
               value in the peers' pass and in these passes.
--scale        JSON lines of the `scale N` runs (start_ns, stop_ns, fire_ns at several N).
--floors       JSON lines of floors.c (a clock read, a mutex, an atomic operation on this machine).
--cross-check  JSON lines of another kit of the same peers (PEERS_DIR): its figures beside ours.

Prints: the main table (rows = metrics; columns = Cadence Swift, C, Python, Python attached to
asyncio, asyncio on Cadence, then each peer), the ratios to the best peer, the goals met or
missed, the floors, the spread of the Cadence runs, the scaling table, and the cross-check if
given.
"""

import argparse
import json
import math
import sys

CADENCE = [
    ("cadence-swift", "Cadence (Swift)"),
    ("cadence-c", "Cadence (C)"),
    ("cadence-py", "Cadence (Python)"),
    ("cadence-py-asyncio", "Cadence (Python, in asyncio)"),  # lat, idle and wake only
    ("asyncio-on-cadence", "asyncio on Cadence"),  # the asyncio peer on cadence.asyncio.EventLoop
]
CADENCE_IMPLS = {impl for impl, _ in CADENCE}
PEER_ORDER = ["libuv", "foundation", "dispatch", "asyncio", "uvloop", "node"]
PY_PEERS = ("asyncio", "uvloop")

# metric, unit shown, direction: "lower" (lower is better), or ("goal", target, text)
ROWS = [
    ("start_ns", "ns/op, N=100k", "lower"),
    ("stop_ns", "ns/op, N=100k", "lower"),
    ("start_cpu_ns", "ns/op, N=100k", "lower"),
    ("stop_cpu_ns", "ns/op, N=100k", "lower"),
    ("fire_ns", "ns/fire, N=100k", "lower"),
    ("lateness_us_p50", "us, 300 fires", "lower"),
    ("lateness_us_p99", "us", "lower"),
    ("lateness_us_max", "us", "lower"),
    ("early_count", "of 300", ("goal", 0, "goal 0 early fires")),
    (
        "interval_us_mean",
        "us, ideal 10000",
        ("goal", 10000, "goal 10000 exactly (a grid that does not drift)"),
    ),
    ("bytes_per_timer", "B, N=1M", "lower"),
    ("idle_cpu_ms", "ms CPU in 5 s", "lower"),
    ("wakeups_per_s", "vol. ctx switches/s", "lower"),
    (
        "wake_fires",
        "ideal 5000",
        ("goal", 5000, "goal 5000 (a few more or less is timing at the edges)"),
    ),
    (
        "wakeups_counted_per_s",
        "loop.wakeups/s, Cadence only",
        ("goal", 10, "goal ~10/s (the optimum)"),
    ),
    (
        "wakeups_virtual_per_s",
        "same timers, virtual clock, Swift only",
        ("goal", 10, "goal ~10/s (the optimum)"),
    ),
    # the wake group through Task.sleep: 1000 tasks; Swift on a loop as the program's executor,
    # Dispatch on Swift's default executor
    ("sleep_wakeups_per_s", "vol. ctx switches/s, 1000 tasks in Task.sleep", "lower"),
    (
        "sleep_wakes",
        "the tasks' wake-ups in 5 s",
        ("goal", 5000, "about 5000 (fewer with tolerance: a sleep starts where the last ended)"),
    ),
    ("sleep_early_count", "Task.sleep returned early", ("goal", 0, "goal 0 early returns")),
    (
        "sleep_wakeups_counted_per_s",
        "loop.wakeups/s of those sleeps, Swift only",
        ("goal", 11, "goal ≤ 11/s (sleeps that end together start again together: below 10)"),
    ),
]


def load(path):
    """{(metric, impl): value} and {impl: [error text]} from one JSON-lines file."""
    cells, errors = {}, {}
    try:
        lines = open(path).read().splitlines()
    except OSError as error:
        print(f"tables.py: {error}", file=sys.stderr)
        return cells, errors
    for line in lines:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("metric") == "error":
            errors.setdefault(r["impl"], []).append(str(r["value"]))
        elif isinstance(r.get("value"), (int, float)):
            cells[(r["metric"], r["impl"])] = float(r["value"])
    return cells, errors


def fmt(v):
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    a = abs(v)
    return (
        f"{v:.0f}" if a >= 100 or float(v).is_integer() else f"{v:.1f}" if a >= 10 else f"{v:.2f}"
    )


def fmt_ratio(r):
    if r is None:
        return "—"
    return f"{r:.2f}×" if r < 10 else f"{r:.1f}×" if r < 100 else f"{r:.0f}×"


def median(values):
    return sorted(values)[len(values) // 2] if values else None


def print_floors(floors, cad, best_start):
    """The primitives a Cadence start pays for and the best peer's does not, and the start less
    the clock read."""
    print("### Floors of this machine\n")
    clock = floors.get(("clock_read_ns", "machine"))
    if clock is None:
        print("Not measured in this run (the floors program failed: see logs/floors.err).\n")
        return
    mutex = floors.get(("mutex_pair_ns", "machine"))
    threaded = floors.get(("mutex_pair_threaded_ns", "machine"))
    atomic = floors.get(("atomic_rmw_ns", "machine"))
    print(
        "What a start pays by design, measured in this run (`Benchmarks/c/floors.c`, median of "
        "7 batches of 10⁶ calls).\n"
    )
    print("| primitive | ns | paid by |")
    print("|---|---:|---|")
    print(
        f"| a fresh CLOCK_MONOTONIC read | {fmt(clock)} | every Cadence start (never the cached "
        "loop time: libuv issue 1068); libuv's `uv_timer_start` adds to its cached `uv_now` |"
    )
    print(
        f"| an uncontended mutex lock + unlock, in a process that never started a thread | "
        f"{fmt(mutex)} | every Cadence start and stop, which any thread may call: one through "
        "Swift, two through C (the handle table's); libuv takes none (one thread only). The "
        "benchmark programs start no thread, so glibc skips the atomic instructions |"
    )
    print(
        f"| the same, once a thread has been started | {fmt(threaded)} | what a program with a "
        "loop on its own thread (`startThread`) pays |"
    )
    print(
        f"| an atomic read-modify-write | {fmt(atomic)} | each retain: a Swift start retains its "
        "action and the loop (in the `ScheduledTimer` it returns) |"
    )
    small = floors.get(("stop_floor_1e3_ns", "machine"))
    large = floors.get(("stop_floor_1e7_ns", "machine"))
    if small and large:
        print(
            f"| a stop in random order at 10³ / 10⁷ timers, the least any structure does (read the "
            f"program's handle, clear a flag in a 40-byte record, push it on a free list; the "
            f"misses of successive stops overlap) | {fmt(small)} / {fmt(large)} "
            f"({large / small:.0f}×) | what bounds the stop's growth from 10³ to 10⁷: memory, "
            "not the structure |"
        )
    best, who = best_start
    cells = []
    for impl, label in CADENCE[:2]:
        v = cad[("start_ns", impl)]
        if v is not None and best and v > clock:
            cells.append(f"{label} {fmt(v - clock)} ns ({fmt_ratio((v - clock) / best)} of {who})")
    if cells:
        print(f"\nstart_ns less the clock read: {'; '.join(cells)}.")
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peers", required=True)
    ap.add_argument("--cadence", nargs="*", default=[])
    ap.add_argument("--scale")
    ap.add_argument("--floors")
    ap.add_argument("--cross-check")
    args = ap.parse_args()

    peer_cells, peer_errors = load(args.peers)
    runs = [peer_cells] + [load(p)[0] for p in args.cadence]
    impls_seen = {impl for (_, impl) in peer_cells}
    peers = [p for p in PEER_ORDER if p in impls_seen or p in peer_errors]
    peers += sorted(p for p in impls_seen if p not in peers and p not in CADENCE_IMPLS)

    # Cadence: every value over the runs, and the median
    samples = {}
    for metric, _, _ in ROWS:
        for impl, _ in CADENCE:
            samples[(metric, impl)] = [run[(metric, impl)] for run in runs if (metric, impl) in run]
    cad = {key: median(v) for key, v in samples.items()}
    nruns = len(runs)

    def peer(metric, p):
        return peer_cells.get((metric, p))

    def best_of(metric, names):
        found = [(peer(metric, p), p) for p in names if peer(metric, p) is not None]
        return min(found) if found else (None, None)

    # 1. main table
    print("### Cadence beside the peers\n")
    print(
        f"Cadence columns: median of {nruns} runs (the peers' pass and {nruns - 1} more "
        f"passes of the same programs); peer columns: the peers' pass. Cells marked * had "
        f"fewer than {nruns} values (a run failed; see the error row).\n"
    )
    head = [label for _, label in CADENCE] + peers
    print("| metric | " + " | ".join(head) + " |")
    print("|---|" + "---:|" * len(head))
    for metric, unit, _ in ROWS:
        cells = []
        for impl, _ in CADENCE:
            v = cad[(metric, impl)]
            mark = "*" if v is not None and len(samples[(metric, impl)]) < nruns else ""
            cells.append(fmt(v) + mark)
        cells += [fmt(peer(metric, p)) for p in peers]
        if all(c == "—" for c in cells):
            continue
        print(f"| {metric} ({unit}) | " + " | ".join(cells) + " |")
    if peer_errors:
        row = ["; ".join(peer_errors.get(impl, [])) or "—" for impl, _ in CADENCE]
        row += ["; ".join(peer_errors.get(p, [])) or "—" for p in peers]
        print("| **error** | " + " | ".join(row) + " |")
    print()

    # 2. ratios to the best peer
    print("### Against the best peer of the same run\n")
    print(
        "Ratio = Cadence median / best peer value (lower is better on every ratio row: below 1.00× "
        "Cadence is ahead). Rows with a target state the goal and the values instead.\n"
    )
    print(
        "| metric | better | best peer | Swift | C | Python | Python, in asyncio "
        "| asyncio on Cadence | Python vs best of asyncio/uvloop | asyncio on Cadence vs asyncio "
        "/ uvloop |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for metric, _, direction in ROWS:
        vals = [cad[(metric, impl)] for impl, _ in CADENCE]
        if all(v is None for v in vals):
            continue
        if direction == "lower":
            best, who = best_of(metric, peers)
            pbest, pwho = best_of(metric, PY_PEERS)
            ratios = [fmt_ratio(v / best) if v is not None and best else "—" for v in vals]
            pyr = fmt_ratio(vals[2] / pbest) if vals[2] is not None and pbest else "—"
            on = vals[4]
            onr = " / ".join(
                fmt_ratio(on / peer(metric, p)) if on is not None and peer(metric, p) else "—"
                for p in PY_PEERS
            )
            bp = f"{who} {fmt(best)}" if who else "—"
            print(
                f"| {metric} | lower | {bp} | "
                + " | ".join(ratios)
                + f" | {pyr} ({pwho or '—'}) | {onr} |"
            )
        else:
            _, target, text = direction
            shown = [
                fmt(v) if metric != "interval_us_mean" or v is None else f"{v:.2f}" for v in vals
            ]
            print(f"| {metric} | {text} | — | " + " | ".join(shown) + " | — | — |")
    print()

    # 3. goals (docs/BENCHMARKS.md: the limits of each row)
    print("### Goals\n")
    print("| goal | Swift | C | Python | Python, in asyncio | asyncio on Cadence |")
    print("|---|---|---|---|---|---|")

    def verdict(ok, text):
        return ("met" if ok else "**missed**") + f" ({text})"

    def ratio_goal(metric, limit, names, label, on_cadence=PY_PEERS):
        """Each column against the best of ``names``; asyncio on Cadence against the best of
        ``on_cadence`` (the asyncio loops it replaces)."""
        out = []
        for impl, _ in CADENCE:
            best, who = best_of(metric, on_cadence if impl == "asyncio-on-cadence" else names)
            v = cad[(metric, impl)]
            if v is None or not best:
                out.append("—")
                continue
            lim = limit[impl]
            out.append(
                verdict(v / best <= lim, f"{fmt_ratio(v / best)} of {who}, limit {lim:.1f}×")
            )
        print(f"| {label} | " + " | ".join(out) + " |")

    for metric in ("start_ns", "stop_ns", "fire_ns"):
        # Swift <= 1.0x and C <= 1.3x of the best peer; Python <= 1.0x of asyncio and of uvloop
        best, who = best_of(metric, peers)
        pbest, pwho = best_of(metric, PY_PEERS)
        out = []
        for impl, lim, b, w in (
            ("cadence-swift", 1.0, best, who),
            ("cadence-c", 1.3, best, who),
            ("cadence-py", 1.0, pbest, pwho),
            ("cadence-py-asyncio", 1.0, pbest, pwho),
            ("asyncio-on-cadence", 1.0, peer(metric, "asyncio"), "asyncio"),
        ):
            v = cad[(metric, impl)]
            out.append(
                "—"
                if v is None or not b
                else verdict(v / b <= lim, f"{fmt_ratio(v / b)} of {w}, limit {lim:.1f}×")
            )
        print(
            f"| {metric}: Swift ≤ 1.0×, C ≤ 1.3× best peer; Python ≤ 1.0× asyncio and uvloop; "
            "asyncio on Cadence ≤ 1.0× asyncio | " + " | ".join(out) + " |"
        )
    for metric in ("lateness_us_p50", "lateness_us_p99"):
        ratio_goal(
            metric,
            {i: 1.0 for i, _ in CADENCE},
            peers,
            f"{metric} ≤ 1.0× best peer (asyncio on Cadence: of asyncio and uvloop)",
        )
    out = []
    for impl, _ in CADENCE:
        v = cad[("early_count", impl)]
        out.append("—" if v is None else verdict(v == 0, f"{fmt(v)} early"))
    print("| early_count = 0 | " + " | ".join(out) + " |")
    out = []
    for impl, _ in CADENCE:
        v = cad[("interval_us_mean", impl)]
        out.append(
            "—"
            if v is None
            else verdict(
                abs(v - 10000) < 5,
                f"{v:.2f} µs, drift {(v - 10000) * 299 / 1000:+.2f} ms over 299 periods",
            )
        )
    print(
        "| interval_us_mean = 10000 (on the grid: \\|mean − 10000\\| < 5 µs) | "
        + " | ".join(out)
        + " |"
    )
    out = []
    for impl, _ in CADENCE:
        v = cad[("bytes_per_timer", impl)]
        out.append("—" if v is None else verdict(v <= 152, f"{fmt(v)} B"))
    print("| bytes_per_timer ≤ 152 | " + " | ".join(out) + " |")
    ratio_goal(
        "idle_cpu_ms",
        {i: 1.0 for i, _ in CADENCE},
        peers,
        "idle_cpu_ms ≤ best peer (asyncio on Cadence: ≤ asyncio)",
        ("asyncio",),
    )
    out = []
    for impl, _ in CADENCE:
        v = cad[("wakeups_per_s", impl)]
        out.append("—" if v is None else verdict(v <= 11, f"{fmt(v)}/s, limit 11/s"))
    print("| wakeups_per_s ≤ 1.1 × 10/s | " + " | ".join(out) + " |")
    out = []
    for impl, _ in CADENCE:
        v, early = cad[("sleep_wakeups_per_s", impl)], cad[("sleep_early_count", impl)]
        out.append(
            "—"
            if v is None or early is None
            else verdict(v <= 11 and early == 0, f"{fmt(v)}/s, limit 11/s; {fmt(early)} early")
        )
    print("| Task.sleep on a loop: sleep_wakeups_per_s ≤ 11/s, 0 early | " + " | ".join(out) + " |")
    print()

    # 4. what the design makes a start pay on this machine
    if args.floors:
        print_floors(load(args.floors)[0], cad, best_of("start_ns", peers))

    # 5. spread of the Cadence runs
    if nruns > 1:
        print(f"### Spread of the {nruns} Cadence runs (min – max)\n")
        print("| metric | " + " | ".join(label for _, label in CADENCE) + " |")
        print("|---|" + "---:|" * len(CADENCE))
        for metric, _, _ in ROWS:
            cells = []
            for impl, _ in CADENCE:
                v = samples[(metric, impl)]
                cells.append("—" if not v else f"{fmt(min(v))} – {fmt(max(v))} ({len(v)})")
            if all(c == "—" for c in cells):
                continue
            print(f"| {metric} | " + " | ".join(cells) + " |")
        print()

    # 6. scaling
    if args.scale:
        print_scale(args.scale)

    # 7. the peers against another kit of the same peers
    if args.cross_check:
        print_cross_check(peer_cells, peers, load(args.cross_check))


SCALE_NAMES = {
    "cadence-swift": "Cadence (Swift)",
    "cadence-c": "Cadence (C)",
    "libuv": "libuv",
    "cadence-py": "Cadence (Python)",
}


def n_label(n):
    """1e6 for 1000000; the number itself when it is not a power of ten."""
    return f"1e{round(math.log10(n))}" if n > 0 and math.log10(n).is_integer() else str(n)


def print_scale(path):
    """The scaling table (mean, p50, p99, p99.9 of batches per operation and N) and the timeout
    pattern's row, from the JSON lines of the scale and timeout groups."""
    raw = {}
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if isinstance(r.get("value"), (int, float)):
            raw[(r["metric"], r["impl"], int(r["n"]))] = float(r["value"])
    ops = ("start", "stop", "fire")
    ns = sorted({n for (m, _, n) in raw if m.split("_")[0] in ops})
    impls = [i for i in SCALE_NAMES if any(k[1] == i and k[0].split("_")[0] in ops for k in raw)]
    print("### Scaling: cost per operation as the number of timers grows\n")
    print(
        "ns per operation (start, stop) or per fire. mean: the median over max(3, min(25, 1e6/N)) "
        "rounds of the wall-clock mean, fewer rounds when the 8 s budget runs out (the first "
        "always runs). p50 / p99 / p99.9: of batches of 1,000 operations, in the thread's CPU "
        "time (preemption left out). Last column: largest N over smallest, of the mean.\n"
    )
    print("| metric | impl | " + " | ".join(f"N={n_label(n)}" for n in ns) + " | growth |")
    print("|---|---|" + "---:|" * (len(ns) + 1))
    for op in ops:
        for impl in impls:
            for stat in ("", "_p50", "_p99", "_p999"):
                row = [raw.get((f"{op}{stat}_ns", impl, n)) for n in ns]
                if all(v is None for v in row):
                    continue
                known = [v for v in row if v is not None]
                growth = f"{known[-1] / known[0]:.1f}×" if stat == "" and len(known) > 1 and known[0] else ""
                label = f"{op}_ns" + (f" {stat[1:].replace('p999', 'p99.9')}" if stat else " mean")
                cells = " | ".join(fmt(v) for v in row)
                print(f"| {label} | {SCALE_NAMES[impl]} | {cells} | {growth} |")
    for impl in impls:  # the first round's starts: resident bytes per armed timer, handle included
        row = [raw.get(("armed_bytes_per_timer", impl, n)) for n in ns]
        if any(v is not None for v in row):
            cells = " | ".join(fmt(v) for v in row)
            print(f"| armed B/timer (handle included) | {SCALE_NAMES[impl]} | {cells} | |")
    print()
    timeout = {
        (impl, n): [raw.get((f"timeout{stat}_ns", impl, n)) for stat in ("", "_p50", "_p99", "_p999")]
        for (metric, impl, n) in raw
        if metric == "timeout_ns"
    }
    if timeout:
        print("### The timeout pattern\n")
        print(
            "N timers live, due 10 to 20 s ahead; then 2N steps, each cancelling the oldest before "
            "it fires and starting a new one (Cadence's C: cancel, release, start; libuv: stop and "
            "start on the same handle), a non-blocking loop turn after every 1,000 steps. ns per "
            "step: wall-clock mean; p50 / p99 / p99.9 of batches of 1,000 steps in CPU time.\n"
        )
        print("| impl | N | mean | p50 | p99 | p99.9 |")
        print("|---|---:|---:|---:|---:|---:|")
        for (impl, n), values in sorted(timeout.items(), key=lambda kv: list(SCALE_NAMES).index(kv[0][0])):
            print(f"| {SCALE_NAMES[impl]} | {n_label(n)} | " + " | ".join(fmt(v) for v in values) + " |")
        print()
    giveback = {
        (impl, n): [raw.get((metric, impl, n)) for metric in GIVEBACK]
        for (metric, impl, n) in raw
        if metric == GIVEBACK[0]
    }
    if giveback:
        print("### Memory given back\n")
        print(
            "N timers armed, then all cancelled, no process-wide trim: the process's resident "
            "bytes per timer over where it started, at the peak and once the loop has had quiet "
            "pass ends (an emptied table gives its pages back), and the kept share of the peak.\n"
        )
        print("| impl | N | peak B/timer | kept B/timer | kept share |")
        print("|---|---:|---:|---:|---:|")
        for (impl, n), (peak, kept, share) in sorted(giveback.items()):
            shown = "—" if share is None else f"{100 * share:.1f} %"
            print(f"| {SCALE_NAMES[impl]} | {n_label(n)} | {fmt(peak)} | {fmt(kept)} | {shown} |")
        print()


#: The give-back step's metrics (CadenceBench giveback N): peak, kept, kept share.
GIVEBACK = ("giveback_peak_bytes_per_timer", "giveback_kept_bytes_per_timer", "giveback_kept_share")


def print_cross_check(ours, peers, kit):
    """Each peer's figure from Benchmarks/peers beside the same peer's from the other kit."""
    kit_cells, kit_errors = kit
    names = [p for p in peers if any(impl == p for (_, impl) in kit_cells) or p in kit_errors]
    print("### Cross-check: the peers beside another kit of the same peers\n")
    if not names:
        print("The kit's run gave no figure for these peers.\n")
        return
    print(
        "Cell: Benchmarks/peers / the kit (ratio), each from one run of this invocation; on a "
        "shared machine differences under about 30 % are noise.\n"
    )
    print("| metric | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for metric, unit, _ in ROWS:
        cells = []
        for p in names:
            a, b = ours.get((metric, p)), kit_cells.get((metric, p))
            if a is None and b is None:
                cells.append("—")
                continue
            ratio = f" ({fmt_ratio(a / b)})" if a is not None and b else ""
            cells.append(f"{fmt(a)} / {fmt(b)}{ratio}")
        if all(c == "—" for c in cells):
            continue
        print(f"| {metric} ({unit}) | " + " | ".join(cells) + " |")
    if kit_errors:
        print(
            "| **error** (kit) | "
            + " | ".join("; ".join(kit_errors.get(p, [])) or "—" for p in names)
            + " |"
        )
    print()


if __name__ == "__main__":
    main()
