#!/usr/bin/env python3
"""profile.py - instruction counts per timer operation, with valgrind's callgrind.

Usage: Benchmarks/profile.py [N]     (default N = 20000; about 30 seconds)

Runs `scale N` of the Swift and C benchmarks under callgrind, collecting only inside the API call
being measured (--toggle-collect), once for one round (PEER_BUDGET_S=0) and once for a few, and
prints, per operation in the rounds after the first (the steady state: the first round grows the
engine's arrays, which later rounds reuse): instructions (Ir), Swift objects allocated, dynamic
exclusivity checks, and the functions that cost the most, inclusive, demangled. Instruction
counts are exact and repeatable (no timer noise); they are not nanoseconds (cache misses, which
grow with N, do not show).

CADENCE_BUILD_DIR=/path/to/cmake-build measures the C API and the bindings against the
libcadence.so there instead of <repo>/build (for example a build configured with
-DCMAKE_Swift_FLAGS="-wmo -num-threads 2").

Then one idle wake-up of Cadence's C API and of libuv (Benchmarks/c/wakeup.c, built here; needs
libuv's headers): instructions and the distinct cache lines of code and data it touches, which is
what a wake-up after a long sleep fetches from memory (the idle row of `make bench`).

Then the same for one quiet cycle of asyncio's default event loop and of cadence.asyncio's
(Benchmarks/python/wakeup.py, with the Python that runs this script).

For the Python bindings, where callgrind cannot name Python functions, it times (wall clock,
N = 100000) the raw ctypes call against the binding's method, which splits a Python operation into
the C library's share and the binding's.

Needs the programs built by Benchmarks/run (or: swift build -c release in Benchmarks/swift, and
the C benchmark at $CADENCE_BENCH_OUT/bin/cadence-bench-c, default /tmp/cadence-bench/bin).
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.environ.get("CADENCE_BENCH_OUT", "/tmp/cadence-bench")
SWIFT = os.path.join(HERE, "swift", ".build", "release", "CadenceBench")
CBENCH = os.path.join(OUT, "bin", "cadence-bench-c")
#: The build whose libcadence.so is measured (the C API, the bindings and wakeup.c).
LIB_DIR = os.environ.get("CADENCE_BUILD_DIR") or os.path.join(ROOT, "build")
# Under callgrind a round at N = 20000 takes about half a second: a few rounds after the first.
STEADY_BUDGET_S = 1.5

# (label, toggle glob on the mangled or C name, operations per N)
TARGETS = {
    "swift": [
        (
            "start: Loop.schedule(after:)",
            "*4LoopC8schedule5after9tolerance2in_*",
            2,
        ),  # start + fire phases
        # ScheduledTimer.cancel() tail-calls the loop's cancel, where callgrind's toggle would
        # end: the loop's cancel is the whole of it but a forwarding jump.
        ("stop: ScheduledTimer.cancel() (Loop.disarmAndWait)", "*4LoopC13disarmAndWait*", 1),
        ("fire: Loop.firePass (whole pass, per fire)", "*4LoopC8firePass*", 1),
    ],
    "c": [
        ("start: cadence_loop_schedule_default", "cadence_loop_schedule_default", 2),
        ("stop: cadence_cancel", "cadence_cancel", 1),
        ("fire: cadence_loop_run (per fire)", "cadence_loop_run", 1),
    ],
}


def parse(path):
    """Inclusive Ir and call counts per function name from a callgrind output file.

    A function's calls to itself are left out of its inclusive cost: callgrind names the deeper
    levels of a recursion `name'2` and reports each call's whole subtree, so adding the recursive
    calls would count every level again for each level above it.
    """
    names = {}
    self_cost, call_cost, calls, callers = {}, {}, {}, {}
    fn = cfn = None
    after_calls = recursive = False

    def name(kind, text):
        m = re.match(r"\((\d+)\)(?: (.*))?", text)
        if not m:
            return text
        key = (kind, m.group(1))
        if m.group(2) is not None:
            names[key] = m.group(2)
        return names.get(key, text)

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("fn="):
                fn = name("fn", line[3:])
            elif line.startswith("cfn="):
                cfn = name("fn", line[4:])
            elif line.startswith("calls="):
                n = int(line[6:].split()[0])
                calls[cfn] = calls.get(cfn, 0) + n
                callers[(cfn, fn)] = callers.get((cfn, fn), 0) + n
                after_calls, recursive = True, cfn == fn
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                if len(parts) < 2:
                    continue
                cost = int(parts[-1])
                if after_calls:
                    if not recursive:
                        call_cost[fn] = call_cost.get(fn, 0) + cost
                    after_calls = False
                else:
                    self_cost[fn] = self_cost.get(fn, 0) + cost
    total = sum(self_cost.values())
    incl = {k: self_cost.get(k, 0) + call_cost.get(k, 0) for k in set(self_cost) | set(call_cost)}
    return total, incl, calls, callers


def count(calls, pattern):
    """Calls of the functions whose (versioned) name matches `pattern`, e.g. malloc@@GLIBC..."""
    return sum(n for k, n in calls.items() if re.fullmatch(pattern, k))


def demangle(symbols):
    try:
        out = subprocess.run(
            ["swift", "demangle", "--simplified", "--compact"],
            input="\n".join(symbols),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        if len(out) == len(symbols):
            return dict(zip(symbols, out))
    except (OSError, subprocess.CalledProcessError):
        pass
    return {s: s for s in symbols}


def callgrind(program, n, toggle, budget):
    """`program scale n` under callgrind, collecting inside `toggle`: (counts, rounds run)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        # The library named in the header, whatever the program's RUNPATH says (the C program
        # is linked against the build that Benchmarks/run used; LD_LIBRARY_PATH comes first).
        env = dict(os.environ, PEER_BUDGET_S=str(budget), LD_LIBRARY_PATH=LIB_DIR)
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                f"--toggle-collect={toggle}",
                program,
                "scale",
                str(n),
            ],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        rounds = len(re.findall(r"^round \d+\b", run.stderr, re.MULTILINE))
        return parse(out), rounds


def profile(program, n, label, toggle, per_n):
    # The first round grows the engine's arrays; the rounds after it are the steady state the
    # benchmarks' medians measure. So: one round, then a few, and the difference.
    (total1, incl1, calls1, _), _ = callgrind(program, n, toggle, 0)
    (total, incl, calls, _), rounds = callgrind(program, n, toggle, STEADY_BUDGET_S)
    if rounds < 2:
        sys.exit(f"profile.py: {program} ran {rounds} round(s) in {STEADY_BUDGET_S} s")
    total -= total1
    incl = {k: v - incl1.get(k, 0) for k, v in incl.items()}
    calls = {k: v - calls1.get(k, 0) for k, v in calls.items()}
    n *= rounds - 1
    ops = per_n * n
    # Counted for functions that Swift code calls directly; callgrind's call counts for libc's
    # pthread and malloc entry points reached through the PLT are not reliable here.
    allocs = count(calls, r"swift_allocObject")
    access = count(calls, r"swift_beginAccess")
    print(f"\n#### {label}\n")
    print(
        f"**{total / ops:,.0f} Ir per operation** ({ops} operations in the rounds after the "
        f"first). Calls in all those operations (not per operation, so that an occasional one "
        f"shows): swift_allocObject (a Swift object or array buffer allocated) {allocs}, "
        f"swift_beginAccess (a dynamic exclusivity check) {access}.\n"
    )
    # the frames around the measured call (main, the benchmark loop, the call itself) cost 100 %
    top = sorted(((k, v) for k, v in incl.items() if v < 0.995 * total), key=lambda kv: -kv[1])
    top = [(k, v) for k, v in top if v / ops >= 40][:16]
    pretty = demangle([k for k, _ in top])
    print("| Ir/op (inclusive) | share | function |")
    print("|---:|---:|---|")
    for k, v in top:
        text = pretty[k]
        text = text if len(text) <= 110 else text[:107] + "..."
        print(f"| {v / ops:,.0f} | {100 * v / total:.0f} % | `{text}` |")


def wakeup_footprint():
    """The cycle of Benchmarks/c/wakeup.c under callgrind's cache simulation, from empty caches
    (callgrind starts them so when collection is switched on): its misses are the distinct
    lines it touches. Median of three runs."""
    print("\n### One idle wake-up from cold caches (Benchmarks/c/wakeup.c, callgrind --cache-sim)\n")
    print("| library | instructions | code lines | data lines | lines (64 B) |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        program = os.path.join(tmp, "wakeup")
        subprocess.run(
            ["gcc", "-O2", "-Wall", "-Wextra", "-I", os.path.join(ROOT, "include"), "-o", program,
             os.path.join(HERE, "c", "wakeup.c"), "-L", LIB_DIR, "-lcadence",
             f"-Wl,-rpath,{LIB_DIR}", "-luv"],
            check=True,
        )
        for kind, name in (("cadence", "Cadence (C API)"), ("libuv", "libuv")):
            footprint_row(name, [program, kind], f"wakeup {kind}")


def asyncio_wakeup_footprint():
    """The same for one quiet cycle of asyncio's default event loop and of
    ``cadence.asyncio.EventLoop`` (Benchmarks/python/wakeup.py), with this Python."""
    print("\n### One quiet asyncio cycle from cold caches (Benchmarks/python/wakeup.py, "
          "callgrind --cache-sim)\n")
    print("| event loop | instructions | code lines | data lines | lines (64 B) |")
    print("|---|---:|---:|---:|---:|")
    env = dict(os.environ, CADENCE_LIBRARY=os.path.join(LIB_DIR, "libcadence.so"))
    with tempfile.TemporaryDirectory() as tmp:
        toggle = os.path.join(tmp, "libtoggle.so")
        subprocess.run(
            ["gcc", "-O2", "-Wall", "-Wextra", "-shared", "-fPIC", "-o", toggle,
             os.path.join(HERE, "c", "callgrind_toggle.c")],
            check=True,
        )
        program = os.path.join(HERE, "python", "wakeup.py")
        for kind, name in (("asyncio", "asyncio's default loop"),
                           ("cadence", "cadence.asyncio.EventLoop")):
            footprint_row(name, [sys.executable, program, kind, toggle], f"wakeup.py {kind}", env)


def footprint_row(name, command, what, env=None):
    """Prints the table row of `command`: the median of three runs' figures (footprint)."""
    ir, code, data = sorted(footprint(command, what, env) for _ in range(3))[1]
    print(f"| {name} | {ir:,} | {code} | {data} | {code + data} |")


def footprint(command, what, env=None):
    """(instructions, code lines, data lines) of one run of `command` under callgrind, whose
    program switches collection on and off around the cycle it measures, and exits with 3 if
    that cycle did not wait."""
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--cache-sim=yes",
         "--callgrind-out-file=/dev/null", *command],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
    )
    if run.returncode == 3:
        sys.exit(f"profile.py: {what}: the cycle measured did not wait (its work under "
                 "callgrind ran past the next fire date)")
    if run.returncode:
        sys.exit(f"profile.py: {what} failed ({run.returncode}):\n{run.stderr}")

    def figure(label):
        found = re.search(rf"{label}:\s+([\d,]+)", run.stderr)
        if not found:
            sys.exit(f"profile.py: no '{label}' in callgrind's summary of {what}")
        return int(found.group(1).replace(",", ""))

    return figure("I   refs"), figure("I1  misses"), figure("D1  misses")


def python_breakdown():
    print(
        "\n#### Python bindings: the library's share and the binding's (wall clock, N = 100000)\n"
    )
    # Reaches into the binding's private names (_lib, the loop's state) to make the
    # raw ctypes call; if they have moved, this part reports that and the rest stands.
    code = r"""
import ctypes, os, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "bindings", "python", "src"))
import cadence
from cadence import _lib
N = 100000
loop = cadence.Loop()
state = loop._state
def noop(tick): pass
def timed(f):
    a = time.monotonic_ns(); f(); return (time.monotonic_ns() - a) / N
outs = [_lib.Handle() for _ in range(N)]
sched = _lib.lib.cadence_loop_schedule_default  # the binding's own start: the loop's fire function
cancel, release = _lib.lib.cadence_cancel, _lib.lib.cadence_cancellable_release
from cadence import _table
keys = [_table.hold(noop) for _ in range(N)]  # the binding's keys, which a cancel hands back
def raw_start():
    for i in range(N):
        sched(state.handle, 1.5, keys[i], outs[i])
def raw_stop():
    for o in outs: cancel(o.value)
def raw_release():
    for o in outs: release(o.value)
hs = [None] * N
def start():
    s = loop.schedule
    for i in range(N): hs[i] = s(1.5, noop)
def stop():
    for h in hs: h.cancel()
    loop.armed_timer_count  # a read: the cancels recorded above reach C here, in one call
M = N // 10  # a publisher each: a subscription's cancel, not a long list's removal
other = cadence.Loop()  # without the timers above
pubs = [other.publish(1.0) for _ in range(M)]  # kept: a publisher given up ends its subscriptions
subs = [p.subscribe(noop) for p in pubs]
def stop_subscriptions():
    for h in subs: h.cancel()
rows = [("start: ctypes cadence_loop_schedule_default (no Python object)", timed(raw_start)),
        ("stop: ctypes cadence_cancel (the binding's release function frees the key)", timed(raw_stop)),
        ("(release of those handles)", timed(raw_release)),
        ("start: Loop.schedule (binding)", timed(start)),
        ("stop: ScheduledTimer.cancel (binding, with the flush of its recorded cancels)", timed(stop)),
        ("stop: Subscription.cancel (binding, N / 10)", timed(stop_subscriptions) * 10)]
for label, v in rows: print(f"| {label} | {v:,.0f} |")
"""
    print("| path | ns/op |")
    print("|---|---:|")
    sys.stdout.flush()
    env = dict(os.environ)
    env["CADENCE_LIBRARY"] = os.path.join(LIB_DIR, "libcadence.so")
    if subprocess.run([sys.executable, "-c", code, ROOT], env=env).returncode != 0:
        print("| (skipped: the binding's private names used here have changed) | — |")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    for program in (SWIFT, CBENCH):
        if not os.access(program, os.X_OK):
            sys.exit(f"profile.py: {program} is missing; run Benchmarks/run (or build it) first")
    print(
        f"### Instructions per operation at N = {n} "
        f"(callgrind, the rounds after the first; C and Python: {LIB_DIR}/libcadence.so)"
    )
    for kind, program in (("swift", SWIFT), ("c", CBENCH)):
        print(f"\n### {'Swift API' if kind == 'swift' else 'C API'}: {program}")
        for label, toggle, per_n in TARGETS[kind]:
            profile(program, n, label, toggle, per_n)
    wakeup_footprint()
    asyncio_wakeup_footprint()
    python_breakdown()


if __name__ == "__main__":
    main()
