"""Floors of any timer loop driven from Python, on this machine: what the Python column's lateness
and idle CPU cannot go below, whatever the library.

Run: python floor.py            (PYTHONPATH must find the cadence package for the last two rows)

- lat: a timerfd at 10 ms (armed once, absolute, CLOCK_MONOTONIC), Python blocked in poll() on it,
  the clock read right after the poll returns; lateness against the grid as bench.py computes it
  (300 fires). No library and no callback: the interpreter's own wake-up.
- idle: the same loop at 1 s for 5 fires, CPU time of the process meanwhile (bench.py's idle).
- pass: CPU time from the start of one cadence_loop_run_pass to its callback, after a 10 ms sleep
  in poll (cold) and back to back (hot): what a cold interpreter and cache add to a wake-up.
"""

import ctypes
import os
import select
import time

libc = ctypes.CDLL(None, use_errno=True)


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


class Itimerspec(ctypes.Structure):
    _fields_ = [("interval", Timespec), ("value", Timespec)]


def timerfd_loop(period_ns, count):
    """Fires of a periodic timerfd, as monotonic ns read after each poll; and the first due time."""
    fd = libc.timerfd_create(1, 0)  # CLOCK_MONOTONIC
    first = time.monotonic_ns() + period_ns
    spec = Itimerspec(Timespec(0, period_ns) if period_ns < 10**9 else Timespec(period_ns // 10**9, 0),
                      Timespec(first // 10**9, first % 10**9))
    assert libc.timerfd_settime(fd, 1, ctypes.byref(spec), None) == 0  # TFD_TIMER_ABSTIME
    watch = select.poll()
    watch.register(fd, select.POLLIN)
    stamps = []
    while len(stamps) < count:
        watch.poll()
        stamps.append(time.monotonic_ns())
        os.read(fd, 8)
    os.close(fd)
    return stamps, first


def percentile(values, p):
    ordered = sorted(values)
    return ordered[max(0, -(-p * len(ordered) // 100) - 1)]


def main():
    stamps, first = timerfd_loop(10_000_000, 300)
    late = [(t - (first + k * 10_000_000)) / 1e3 for k, t in enumerate(stamps)]
    print(f"lat: bare Python poll on a timerfd, p50 {percentile(late, 50):.0f} us, "
          f"p99 {percentile(late, 99):.0f} us")
    cpu = time.process_time_ns()
    timerfd_loop(1_000_000_000, 5)
    print(f"idle: bare Python poll on a timerfd, {(time.process_time_ns() - cpu) / 1e6:.2f} ms CPU in 5 s")
    try:
        import cadence
    except ImportError:
        return
    with cadence.Loop() as loop:
        seen = []
        handle, lib = loop._state.handle, cadence._lib.lib
        timer = loop.schedule(0.01, lambda tick: seen.append(time.thread_time_ns()), interval=0.01)
        watch = select.poll()
        watch.register(loop.fileno(), select.POLLIN)
        loop.run_pass()
        for label, wait in (("cold", True), ("hot", False)):
            costs = []
            if not wait:
                timer.cancel()
                timer = loop.schedule(0.0, lambda tick: seen.append(time.thread_time_ns()), interval=1e-6)
            while len(costs) < 300:
                if wait:
                    watch.poll()
                before, count = time.thread_time_ns(), len(seen)
                lib.cadence_loop_run_pass(handle, b"default")
                if len(seen) > count:
                    costs.append((seen[count] - before) / 1e3)
            print(f"pass: {label}, CPU from a pass's start to its callback p50 {percentile(costs, 50):.1f} us")
        timer.cancel()


if __name__ == "__main__":
    main()
