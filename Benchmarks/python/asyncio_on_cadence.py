#!/usr/bin/env python3
"""asyncio_on_cadence.py - the asyncio peer program, unchanged, on Cadence's asyncio event loop.

Run: python asyncio_on_cadence.py ops|lat|idle|wake|mem      (the column "asyncio on Cadence")

It installs ``cadence.asyncio.EventLoopPolicy`` and then runs ``Benchmarks/peers/asyncio_peer.py``
as ``asyncio GROUP`` in this process, so the peer's ``asyncio.new_event_loop()`` makes a
``cadence.asyncio.EventLoop``: every ``call_later`` and ``call_at`` of the peer is a Cadence
one-shot. Its JSON lines are printed with ``"impl": "asyncio-on-cadence"`` in place of
``"asyncio"``; nothing else of the peer is touched.

Tolerance: the peer program has none (asyncio has no such concept), and the wake group's
definition gives the timers 10 % of their 1 s period where the API has a tolerance. So the wake
group's policy makes its loops with ``tolerance=0.1``, what a program would write to allow it
(``cadence.asyncio.EventLoop(tolerance=0.1)``, or ``with cadence.asyncio.tolerance(0.1):``
around its sleeps); every other group runs at the default tolerance of 0, each timer on its own
time. After the wake group it also prints ``wakeups_counted_per_s``: the Cadence loop's own count
of wake-ups (``Loop.wakeups``) over the peer's run, warm-up included, per second.
"""

import os
import runpy
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python", "src"))
import cadence.asyncio  # noqa: E402

IMPL = "asyncio-on-cadence"
GROUP = sys.argv[1] if len(sys.argv) > 1 else "ops"
TOLERANCE = 0.1 if GROUP == "wake" else 0.0  # 10 % of the wake group's 1 s period


class Relabel:
    """stdout with the peer's ``"impl": "asyncio"`` written as this column's name."""

    def __init__(self, out):
        self._out = out

    def write(self, text):
        """Writes ``text`` with the column's name."""
        return self._out.write(text.replace('"impl": "asyncio"', f'"impl": "{IMPL}"'))

    def flush(self):
        """Flushes stdout."""
        self._out.flush()


class Policy(cadence.asyncio.EventLoopPolicy):
    """The policy of the column, keeping the loops it made (for the wake-up count)."""

    def __init__(self, *, tolerance):
        super().__init__(tolerance=tolerance)
        self.made = []

    def new_event_loop(self):
        """A new Cadence event loop, kept."""
        loop = super().new_event_loop()
        self.made.append(loop)
        return loop


def main():
    """Runs the peer program on Cadence's event loop."""
    policy = Policy(tolerance=TOLERANCE)
    cadence.asyncio.asyncio.set_event_loop_policy(policy)
    sys.argv = [os.path.join(HERE, "..", "peers", "asyncio_peer.py"), "asyncio", GROUP]
    sys.stdout = Relabel(sys.stdout)
    t0 = time.monotonic()
    runpy.run_path(sys.argv[0], run_name="__main__")
    seconds = time.monotonic() - t0
    if GROUP == "wake" and policy.made:
        wakeups = policy.made[-1].cadence.wakeups
        print(
            f'{{"impl": "{IMPL}", "metric": "wakeups_counted_per_s", "n": 1000, '
            f'"value": {wakeups / seconds}, "unit": "1/s"}}',
            flush=True,
        )


if __name__ == "__main__":
    main()
