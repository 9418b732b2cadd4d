"""Floors of any timer loop driven from Python, on this machine: what the Python column's lateness
and idle CPU cannot go below, whatever the library.

Run: python floor.py            (PYTHONPATH must find the cadence package for the last two rows)

- lat: a timerfd at 10 ms (armed once, absolute, CLOCK_MONOTONIC), Python blocked in poll() on it,
  the clock read right after the poll returns; lateness against the grid as bench.py computes it
  (300 fires). No library and no callback: the interpreter's own wake-up.
- idle: the same loop at 1 s for 5 fires, CPU time of the process meanwhile (bench.py's idle).
- idle, asyncio: the asyncio peer's idle group (a timer re-armed with call_at on a 1 s grid, 5
  fires) on asyncio's default loop, and again with two bare ctypes calls into libcadence per fire
  (cadence_loop_now, the cheapest call that reaches the engine): what any asyncio loop whose timers
  live behind this ABI pays at least, one crossing to run a pass and one to arm the next timer,
  each from a cold cache. The "asyncio on Cadence" column's idle CPU is compared with both.
- pass: CPU time from the start of one cadence_loop_run_pass to its callback, after a 10 ms sleep
  in poll (cold) and back to back (hot): what a cold interpreter and cache add to a wake-up.
- stop: bench.py's stop (100,000 one-shots armed 1-2 s ahead, cancelled in random order) with no
  binding code: each handle reached in that order (Python's own cost), then the bare ctypes call
  of cadence_cancel_steal (PyDLL, which keeps the GIL) on each. The second is what any binding
  of this ABI over ctypes pays per stop; asyncio's whole cancel is the target it is compared with.
- fire: bench.py's fire (100,000 one-shots due within 1 ms) with a bare ctypes fire function that
  only counts, and the cost of making one Tick (a NamedTuple) per call, which every callback gets;
  then with a bare batch function instead (cadence_loop_set_fire_batch, one ctypes call per batch
  of up to 256 fires), which leaves the engine's fire and Python's own work per callback.
"""

import ctypes
import os
import random
import select
import time
import timeit

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
    idle_asyncio_floor(cadence)
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
        stop_floor(loop)
        fire_floor(loop)


def idle_asyncio_floor(cadence):
    """The asyncio peer's idle group on asyncio's default loop, then with two crossings per fire."""
    import asyncio

    def idle_ms(crossings):
        loop, out = asyncio.new_event_loop(), ctypes.c_double()
        with cadence.Loop() as engine:
            handle, now = engine._state.handle, cadence._lib.lib.cadence_loop_now
            loop.call_later(0.001, loop.stop)
            loop.run_forever()  # the peer's warm-up
            start, fires = loop.time(), [0]

            def tick():
                for _ in range(crossings):
                    now(handle, ctypes.byref(out))
                fires[0] += 1
                if fires[0] == 5:
                    return loop.stop()
                loop.call_at(start + fires[0] + 1, tick)

            cpu = time.process_time_ns()
            loop.call_at(start + 1, tick)
            loop.run_forever()
            loop.close()
            return (time.process_time_ns() - cpu) / 1e6

    print(f"idle: asyncio's default loop {idle_ms(0):.2f} ms CPU in 5 s, with two crossings into "
          f"libcadence per fire {idle_ms(2):.2f} ms")


def stop_floor(loop, n=100_000):
    """The stop rows (see the module's notes): median of three rounds each."""
    import cadence

    rng, reach, call, keys = random.Random(1), [], [], [0] * n
    steal = ctypes.PyDLL(cadence._lib.path).cadence_cancel_steal
    steal.restype, steal.argtypes = cadence._lib.PROTOTYPES["cadence_cancel_steal"]
    for _ in range(3):
        timers = [loop.schedule(1.0 + rng.random(), print) for _ in range(n)]
        order = list(range(n))
        rng.shuffle(order)
        began = time.perf_counter_ns()
        for i in order:
            keys[i] = timers[i]._handle
        reached = time.perf_counter_ns()
        for i in order:
            keys[i] = steal(timers[i]._handle)
        ended = time.perf_counter_ns()
        reach.append((reached - began) / n)
        call.append((ended - reached) / n - reach[-1])
        for key in keys:  # C handed the keys back: the binding's table lets them go
            cadence._table.drop(key)
    print(f"stop: reaching each of {n:,} handles in random order {sorted(reach)[1]:.0f} ns, "
          f"then a bare ctypes cadence_cancel_steal {sorted(call)[1]:.0f} ns more")


def fire_floor(loop, n=100_000):
    """The fire rows (see the module's notes): median of three rounds each."""
    import cadence

    state, lib, counted = loop._state, cadence._lib.lib, [0]

    def fire(key, date, skipped, final):  # the keys stay taken: the program ends soon
        counted[0] += 1

    def batch(address, count, started):  # the same, a batch at a time (none skipped: C's
        counted[0] += count               # count of calls started can stay 0, the batch ends them)

    # The timers armed now call `bare` once per fire: a batch takes only the one-shots of the
    # fire function it was set with (the binding's).
    bare = cadence._lib.FIRE_FN(fire)
    lib.cadence_loop_set_callbacks(state.handle, bare, state.on_release)
    each = timed_fires(loop, n, random.Random(2), counted)
    lib.cadence_loop_set_callbacks(state.handle, state.on_fire, state.on_release)
    tick = timeit.timeit(lambda: tuple.__new__(cadence.Tick, (1.5, 0)), number=n) / n * 1e9
    print(f"fire: a bare ctypes fire function {each:.0f} ns per fire; "
          f"making a Tick {tick:.0f} ns more")
    if hasattr(cadence._lib, "FIRE_BATCH_FN"):  # since cadence_loop_set_fire_batch
        batched = cadence._lib.FIRE_BATCH_FN(batch)
        lib.cadence_loop_set_fire_batch(state.handle, batched)
        per_batch = timed_fires(loop, n, random.Random(3), counted)
        lib.cadence_loop_set_fire_batch(state.handle, state.on_batch)
        print(f"fire: a bare ctypes batch function {per_batch:.0f} ns per fire")


def timed_fires(loop, n, rng, counted):
    """ns per fire of n one-shots due within 1 ms, run by passes until ``counted`` says all
    came; median of three rounds."""
    import cadence

    costs, handle, lib = [], loop._state.handle, cadence._lib.lib
    for _ in range(3):
        counted[0] = 0
        timers = [loop.schedule(rng.random() * 0.001, print) for _ in range(n)]
        time.sleep(0.002)
        began = time.perf_counter_ns()
        while counted[0] < n:
            lib.cadence_loop_run_pass(handle, b"default")
        costs.append((time.perf_counter_ns() - began) / n)
        del timers
    return sorted(costs)[1]


if __name__ == "__main__":
    main()
