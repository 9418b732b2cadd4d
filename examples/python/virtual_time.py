"""A countdown and a non-overlapping poller, run in virtual time: exact and instant.

Run from a source checkout after building the library
(cmake -S . -B build -G Ninja && cmake --build build):

    python examples/python/virtual_time.py

A virtual loop (``cadence.Loop.virtual()``) runs the same timer engine on a clock that moves only
when told, so this prints the same lines on every machine, at once.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import cadence
except ImportError:  # not installed: use the binding from this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python" / "src"))
    import cadence


def countdown() -> None:
    """A 3 s countdown with 0.25 s ticks, while the clock jumps by 1.2, 1.5 and 2 s."""
    with cadence.Loop.virtual() as loop:
        events: list[str] = []
        _countdown = loop.countdown(
            loop.now() + 3.0,
            0.25,
            lambda remaining: events.append(f"{remaining}@{loop.now():g}s"),
            on_finish=lambda: events.append(f"done@{loop.now():g}s"),
        )
        for step in (1.2, 1.5, 2.0):
            loop.run(step)
        print("countdown:", " ".join(events))


def poller() -> None:
    """A status poll every 30 s whose response takes 45 s: polls never overlap."""
    with cadence.Loop.virtual() as loop:
        started: list[str] = []

        def poll_status(poll: cadence.Poll) -> None:
            started.append(f"#{poll.number}@{poll.date:g}s")
            loop.schedule(45.0, lambda tick: poll.finish())  # the response arrives 45 s later

        with loop.poller(30.0, poll_status, finish_on_return=False) as status:
            loop.run(200.0)
            print(f"poller (tolerance {status.tolerance:g} s):", " ".join(started))
            status.set_active(False)  # hidden: nothing polls, no timer armed
            loop.run(100.0)
            print(f"paused for 100 s: {len(started)} polls, {loop.armed_timer_count} timers armed")


def main() -> None:
    """Runs both demonstrations."""
    countdown()
    poller()


if __name__ == "__main__":
    main()
