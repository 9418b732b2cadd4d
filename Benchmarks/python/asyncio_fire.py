#!/usr/bin/env python3
"""asyncio_fire.py - where the fire cost of "asyncio on Cadence" goes, part by part.

Run: python asyncio_fire.py [uvloop]     (CADENCE_LIBRARY or build/libcadence.so, as bench.py;
                                          "uvloop" adds uvloop's figure when it is importable)

Each row is the peer's fire phase (100,000 one-shots due within 1 ms, run until the counting
callback has seen all of them), or one part of it, in CPU ns per timer (``time.process_time_ns``,
so other programs on the machine move it less than the wall clock), the minimum of 5 rounds:

- ``EventLoop``: the whole fire on ``cadence.asyncio.EventLoop`` (``call_later``, then
  ``run_forever`` timed);
- ``Loop.schedule``: the same timers on the Cadence loop alone (``loop.schedule``, ``loop.run``),
  the binding's fire: a ctypes callback, the table look-up, a ``Tick``;
- ``asyncio ready queue``: asyncio running handles already in its ready queue (``call_soon``
  beforehand), what every asyncio loop pays per callback;
- ``ScheduledTimer freed``: giving up the handles of fired one-shots (a ctypes call each in
  ``__del__``), which the event loop pays when a fired ``TimerHandle`` is collected;
- ``asyncio``, ``uvloop``: the peers' whole fire, for comparison.
"""

import asyncio
import gc
import os
import random
import sys
import time

sys.path.insert(
    0,
    os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python", "src"
    ),
)
import cadence  # noqa: E402
import cadence.asyncio  # noqa: E402

N = 100_000
cpu = time.process_time_ns


def delays():
    return [random.random() * 0.001 for _ in range(N)]


def event_loop_fire(loop):
    """The peer's fire phase on an asyncio loop: CPU ns per fire."""
    fired = [0]

    def count():
        fired[0] += 1
        if fired[0] == N:
            loop.stop()

    for d in delays():
        loop.call_later(d, count)
    t0 = cpu()
    loop.run_forever()
    return (cpu() - t0) / N


def cadence_fire(loop):
    """The same on Cadence's own API."""
    fired = [0]

    def count(_):
        fired[0] += 1
        if fired[0] == N:
            loop.stop()

    handles = [loop.schedule(d, count) for d in delays()]
    t0 = cpu()
    loop.run(10.0)
    spent = (cpu() - t0) / N
    t0 = cpu()
    del handles
    return spent, (cpu() - t0) / N


def ready_queue(loop):
    """asyncio's cost per ready callback."""
    fired = [0]

    def count():
        fired[0] += 1

    for _ in range(N):
        loop.call_soon(count)
    loop.call_soon(loop.stop)
    t0 = cpu()
    loop.run_forever()
    return (cpu() - t0) / N


def best(measure, *args):
    values = []
    for _ in range(5):
        values.append(measure(*args))
        gc.collect()
    return min(values)


def main():
    loops = {"EventLoop": cadence.asyncio.EventLoop(), "asyncio": asyncio.new_event_loop()}
    if sys.argv[1:2] == ["uvloop"]:
        import uvloop

        loops["uvloop"] = uvloop.new_event_loop()
    rows = {name: best(event_loop_fire, loop) for name, loop in loops.items()}
    with cadence.Loop() as own:
        pairs = [cadence_fire(own) for _ in range(5)]
    rows["Loop.schedule"] = min(p[0] for p in pairs)
    rows["ScheduledTimer freed"] = min(p[1] for p in pairs)
    rows["asyncio ready queue"] = best(ready_queue, loops["asyncio"])
    for name in ("EventLoop", "Loop.schedule", "asyncio ready queue", "ScheduledTimer freed"):
        print(f"{name}: {rows.pop(name):.0f} ns CPU per fire")
    for name, value in rows.items():
        print(f"{name} (peer): {value:.0f} ns CPU per fire")
    for loop in loops.values():
        loop.close()


if __name__ == "__main__":
    main()
