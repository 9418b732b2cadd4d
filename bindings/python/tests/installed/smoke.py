"""A user's first script, run by test_wheel.py with the installed package in a fresh virtual
environment under ``env -i PATH=/usr/bin:/bin``: ticks arrive, a countdown finishes, a bad
argument raises ValueError, asyncio works. Prints one JSON object, with the shared libraries
the process has loaded, for the test to check that none comes from a Swift toolchain."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import cadence


def synchronous(report: dict[str, object]) -> None:
    with cadence.Loop() as loop:
        dates: list[float] = []
        timer = loop.publish(0.05)
        with timer.subscribe(lambda tick: dates.append(tick.fire_date)), timer.connect():
            loop.run(0.33)
        report["ticks"] = len(dates)

        values: list[int] = []
        finished: list[bool] = []
        _countdown = loop.countdown(
            loop.now() + 0.3, 0.05, values.append, on_finish=lambda: finished.append(True)
        )
        loop.run(0.5)
        report["countdown"] = values
        report["countdown_finished"] = finished == [True]

        try:
            loop.publish(0.0)
        except ValueError as error:
            report["bad_argument"] = f"{type(error).__name__}: {error}"


async def in_asyncio() -> int:
    with cadence.Loop() as loop, loop.threaded():
        dates: list[float] = []
        async for fire_date in loop.publish(0.05).autoconnect():
            dates.append(fire_date)
            if len(dates) == 3:
                break
        await loop.countdown(loop.now() + 0.1, 0.05)
        return len(dates)


def main() -> None:
    report: dict[str, object] = {
        "library_path": cadence.library_path,
        "library_version": cadence.library_version,
        "environment": sorted(os.environ),
        "path": os.environ.get("PATH", ""),
    }
    synchronous(report)
    report["async_ticks"] = asyncio.run(in_asyncio())
    mapped = (line.split() for line in Path("/proc/self/maps").read_text().splitlines())
    report["libraries"] = sorted({fields[-1] for fields in mapped if ".so" in fields[-1]})
    print(json.dumps(report))


if __name__ == "__main__":
    main()
