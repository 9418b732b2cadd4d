"""Cadence timers in an asyncio program, on the asyncio loop's own thread: the Cadence loop is
attached to it (its descriptor watched with add_reader), so there is no second thread. A timer
iterated with ``async for`` beside a task of the program's own, a countdown, and a poller whose
operation is a coroutine.

Run from a source checkout after building the library
(cmake -S . -B build -G Ninja && cmake --build build):

    python examples/python/asyncio_ticker.py

or anywhere once the ``cadence`` package is installed (``pip install .``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from pathlib import Path

try:
    import cadence
except ImportError:  # not installed: use the binding from this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python" / "src"))
    import cadence


async def fetch_status(poll: cadence.Poll) -> None:
    """Stands for a slow network call: polls never overlap, so a slow one delays the next."""
    await asyncio.sleep(0.15)
    print(f"  poll {poll.number} done")


async def main() -> None:
    """Runs the three parts one after another."""
    # Attached: this asyncio loop runs the Cadence loop, on this thread.
    with cadence.Loop() as loop, loop.attach_asyncio():
        start = loop.now()
        timer = loop.publish(0.05).autoconnect()  # ticks while something iterates it

        async def ticks() -> None:
            async for fire_date in timer:
                print(f"tick at +{fire_date - start:.3f} s")

        async def heartbeat() -> None:  # the program's own asyncio work, beside the timer
            for _ in range(2):
                await asyncio.sleep(0.12)
                print(f"asyncio task at +{loop.now() - start:.3f} s")

        task = asyncio.create_task(ticks())
        await asyncio.gather(heartbeat(), asyncio.sleep(0.33))
        task.cancel()  # cancels the subscription, and so the timer
        await asyncio.gather(task, return_exceptions=True)
        print(f"timers armed after the cancel: {loop.armed_timer_count}")
        print(f"threads: {threading.active_count()}")

        print("countdown:")
        async for left in loop.countdown(loop.now() + 2.0, 0.25):
            print(f"  {left} s left")

        print("poller every 0.1 s, for 0.5 s:")
        poller = loop.poller(0.1, fetch_status)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(poller, 0.5)  # the timeout cancels the poller
        print(f"poller cancelled: {poller.cancelled}")


if __name__ == "__main__":
    asyncio.run(main())
