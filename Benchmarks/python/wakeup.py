#!/usr/bin/env python3
"""wakeup.py - what one quiet wake-up of an asyncio event loop touches, for Benchmarks/profile.py.

Run:   valgrind --tool=callgrind --instr-atstart=no --cache-sim=yes \\
           python wakeup.py asyncio|cadence TOGGLE_LIBRARY

A repeating 200 ms timer written as the asyncio peer program writes it (``call_at`` on a grid,
from its own callback), on asyncio's default event loop or on ``cadence.asyncio.EventLoop``.
Callgrind collects from the callback of the 20th fire to that of the 21st (past the interpreter's
warm-up and specialization): the callback's return, the next ``call_at``, the loop's turn, the
wait, the wake-up and its pass. The two functions of TOGGLE_LIBRARY (Benchmarks/c/callgrind_toggle.c)
that switch collection are bound before the cycle: a ctypes function's first lookup costs about
13,000 instructions of its own. With instrumentation off until then, callgrind's simulated caches
start empty, so its misses count the distinct cache lines the cycle touches (as wakeup.c does
for the C API). Exits with 3 if the cycle did not wait (its work under callgrind ran past the
next fire date).
"""

import asyncio
import ctypes
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python", "src"))

FROM, TO, PERIOD = 20, 21, 0.2


def main():
    kind, toggle = sys.argv[1], ctypes.CDLL(sys.argv[2])
    start_collecting, stop_collecting = toggle.cadence_profile_start, toggle.cadence_profile_stop
    if kind == "cadence":
        import cadence.asyncio

        loop = cadence.asyncio.EventLoop()
    else:
        loop = asyncio.new_event_loop()
    first = time.monotonic()
    fires, waited = 0, []
    began = 0.0

    def tick():
        nonlocal fires, began
        fires += 1
        if fires == FROM:
            began = time.monotonic()  # read outside the collection, which would count it
            start_collecting()
        elif fires == TO:
            stop_collecting()
            waited.append(time.monotonic() - began >= PERIOD / 2)
            loop.stop()
            return
        loop.call_at(first + (fires + 1) * PERIOD, tick)

    loop.call_at(first + PERIOD, tick)
    try:
        loop.run_forever()
    finally:
        loop.close()
    sys.exit(0 if waited == [True] else 3)


if __name__ == "__main__":
    main()
