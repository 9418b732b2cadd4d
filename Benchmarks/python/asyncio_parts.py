#!/usr/bin/env python3
"""asyncio_parts.py - where the start, stop and fire costs of "asyncio on Cadence" go, part by part.

Run: python asyncio_parts.py [uvloop]    (CADENCE_LIBRARY or build/libcadence.so, as bench.py;
                                          "uvloop" adds uvloop's figures when it is importable)

Each row is one phase of the peer's ops group (100,000 timers; asyncio_peer.py), or one part of
it, in CPU ns per timer (``time.process_time_ns``, so other programs on the machine move it less
than the wall clock), the minimum of 5 rounds:

- start: ``call_later`` with delays in [1 s, 2 s) on each loop; ``Loop.schedule`` of the same
  delays (the binding's one-shot: one ctypes call, the callback table, a ``ScheduledTimer``);
  ``Timer``, the event loop's ``TimerHandle`` alone;
- stop: ``TimerHandle.cancel()`` in random order then one loop turn, on each loop (the peer's
  case: no turn between start and cancel, so "asyncio on Cadence" never hands these timers to C);
  the same with one turn between start and cancel ("started": on "asyncio on Cadence" each
  timer is in C by then, and its cancel is handed over in the next turn's batch), and the cost
  of that turn ("the turn after": where "asyncio on Cadence" hands the starts to C);
  ``ScheduledTimer.cancel()`` alone (one ctypes call and the table's slot);
- fire: 100,000 one-shots due within 1 ms, run until the counting callback has seen all, on each
  loop; the same on the Cadence loop alone (``Loop.schedule``, ``Loop.run``: a ctypes callback,
  the table look-up, a ``Tick``); asyncio running handles already in its ready queue, which every
  asyncio loop pays per callback; and giving up the handles of ``Loop.schedule``'s fired
  one-shots (a ctypes call each, in ``ScheduledTimer.__del__``), which the event loop does not
  pay: its one-shots' handles end with their fire (``cadence_loop_schedule_transient``).
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
import cadence
import cadence.asyncio
from cadence._asyncio_timer import Timer

N = 100_000
cpu = time.process_time_ns


def delays():
    """The fire phase's delays: N, uniform in [0, 1 ms)."""
    return [random.random() * 0.001 for _ in range(N)]


def event_loop_fire(loop):
    """The peer's fire phase on an asyncio loop: CPU ns per fire."""
    fired = [0]

    def count():
        fired[0] += 1
        if fired[0] == N:
            loop.stop()

    handles = [loop.call_later(d, count) for d in delays()]
    del handles
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
    """The cost of asyncio's ready queue per callback."""
    fired = [0]

    def count():
        fired[0] += 1

    for _ in range(N):
        loop.call_soon(count)
    loop.call_soon(loop.stop)
    t0 = cpu()
    loop.run_forever()
    return (cpu() - t0) / N


def one_turn(loop):
    """One turn of ``loop``."""
    loop.call_soon(loop.stop)
    loop.run_forever()


def start_stop(loop, make, started=False):
    """CPU ns per start and per stop (cancel in random order, then one turn of ``loop``); with
    ``started``, a turn between the starts and the cancels, whose cost is then the first figure
    (where "asyncio on Cadence" hands the starts to C)."""
    spans = [1.0 + random.random() for _ in range(N)]
    order = list(range(N))
    random.shuffle(order)
    t0 = cpu()
    handles = [make(d, nothing) for d in spans]
    t1 = cpu()
    start = (t1 - t0) / N
    if started:
        one_turn(loop)
        start, t1 = (cpu() - t1) / N, cpu()
    for i in order:
        handles[i].cancel()
    if loop is not None:
        one_turn(loop)
    return start, (cpu() - t1) / N


def timers_alone(loop):
    """CPU ns to make the event loop's TimerHandle alone."""
    t0 = cpu()
    handles = [Timer(1.0, nothing, (), loop) for _ in range(N)]
    spent = (cpu() - t0) / N
    del handles
    return spent


def nothing(*_):
    """A callback that does nothing."""


def best(measure, *args):
    """The minimum over 5 rounds (element-wise for pairs)."""
    values = []
    for _ in range(5):
        values.append(measure(*args))
        gc.collect()
    if isinstance(values[0], tuple):
        return tuple(min(v[i] for v in values) for i in range(len(values[0])))
    return min(values)


def main():
    """Prints each row."""
    loops = {"EventLoop": cadence.asyncio.EventLoop(), "asyncio": asyncio.new_event_loop()}
    if sys.argv[1:2] == ["uvloop"]:
        import uvloop

        loops["uvloop"] = uvloop.new_event_loop()
    own = cadence.Loop()
    rows = []
    for name, loop in loops.items():
        start, stop = best(start_stop, loop, loop.call_later)
        rows += [(f"start: {name} call_later", start), (f"stop: {name} cancel + turn", stop)]
        turn, stop = best(start_stop, loop, loop.call_later, True)
        rows += [
            (f"start: {name} the turn after", turn),
            (f"stop: {name} started, cancel + turn", stop),
        ]
    start, stop = best(start_stop, None, own.schedule)
    rows += [("start: Loop.schedule", start), ("stop: ScheduledTimer.cancel", stop)]
    rows.append(
        ("start: the event loop's TimerHandle alone", best(timers_alone, loops["EventLoop"]))
    )
    for name, loop in loops.items():
        rows.append((f"fire: {name}", best(event_loop_fire, loop)))
    pairs = [cadence_fire(own) for _ in range(5)]
    rows.append(("fire: Loop.schedule + Loop.run", min(p[0] for p in pairs)))
    rows.append(("fire: fired ScheduledTimers given up", min(p[1] for p in pairs)))
    rows.append(("fire: asyncio's ready queue", best(ready_queue, loops["asyncio"])))
    for name, value in rows:
        print(f"{name}: {value:.0f} ns CPU per timer")
    own.close()
    for loop in loops.values():
        loop.close()


if __name__ == "__main__":
    main()
