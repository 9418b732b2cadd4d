"""Prints the fire dates of a 0.1 s timer while a Cadence loop runs for 0.55 s.

Run from a source checkout after building the library
(cmake -S . -B build -G Ninja && cmake --build build):

    python examples/python/ticker.py

or anywhere once the ``cadence`` package is installed. Set CADENCE_LIBRARY to use another build
of libcadence.so.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

try:
    import cadence
except ImportError:  # not installed: use the binding from this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python" / "src"))
    import cadence


def main() -> None:
    """Runs the ticker."""
    with cadence.Loop() as loop:
        start = loop.now()

        def show(tick: cadence.Tick) -> None:
            when = datetime.fromtimestamp(tick.fire_date, tz=timezone.utc)
            late_ms = (loop.now() - tick.fire_date) * 1000
            print(
                f"{when:%H:%M:%S.%f} UTC  +{tick.fire_date - start:.3f} s  "
                f"(called {late_ms:.2f} ms after its fire date, {tick.skipped} skipped)"
            )

        # A connectable timer: nothing ticks until connect(); the `with` blocks cancel on exit.
        timer = loop.publish(0.1, mode="common")
        with timer.subscribe(show), timer.connect():
            loop.run(0.55)
        print(f"{loop.wakeups} wake-ups")


if __name__ == "__main__":
    main()
