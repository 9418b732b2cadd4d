"""A loop that asyncio hosts (``attach_asyncio``) coalesces as one that ``Loop.run`` runs: the same
schedule, armed before the run, from a callback during it and from another thread, makes the same
wake-ups (the loop's counter) and fires at the same dates both ways; the C test
Tests/C/hosted_coalescing.c runs it by ``cadence_loop_run``, a poll host and a ``uv_loop_t`` host.
Then timers armed by asyncio's own callback between passes, the earlier fire date first, share
one wake-up at the later date (an attached loop once woke for each)."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

import pytest

import cadence

# Fire dates from the start and tolerances (seconds). T fires alone; A and B share a wake-up at
# B's date, as do C and D (armed by T's callback) and E and F (armed by another thread at
# THREAD_AT). Groups are 0.25 s apart or more, so a loaded machine's late wake-up keeps them apart.
DUE = {"T": 0.05, "A": 0.40, "B": 0.44, "C": 0.70, "D": 0.74, "E": 1.20, "F": 1.24}
TOLERANCE = {"T": 0.0} | dict.fromkeys("ABCDEF", 0.15)
GROUP = {"T": 0, "A": 1, "B": 1, "C": 2, "D": 2, "E": 3, "F": 3}
THREAD_AT = 0.90
END = 1.45


@dataclass
class Way:
    """One way of running the schedule: what each timer saw."""

    loop: cadence.Loop
    origin: float = 0.0
    wakeups_at_start: int = 0
    group: dict[str, int] = field(default_factory=dict)  # the wake-up each fired in
    date: dict[str, float] = field(default_factory=dict)  # its fire date, from the start
    early: int = 0
    kept: list[cadence.ScheduledTimer] = field(default_factory=list)
    thread: threading.Thread | None = None

    def arm(self, name: str) -> None:
        """Arms ``name`` with its fire date DUE[name] after the start, whenever it is armed."""

        def fire(tick: cadence.Tick) -> None:
            if self.loop.now() < tick.fire_date:
                self.early += 1
            self.group[name] = self.loop.wakeups - self.wakeups_at_start
            self.date[name] = tick.fire_date - self.origin
            if name == "T":  # armed during the run, on its thread
                self.arm("C")
                self.arm("D")

        delay = self.origin + DUE[name] - self.loop.now()
        self.kept.append(self.loop.schedule(delay, fire, tolerance=TOLERANCE[name]))

    def start(self) -> None:
        self.wakeups_at_start = self.loop.wakeups
        self.origin = self.loop.now()
        for name in "TAB":
            self.arm(name)

        def from_thread() -> None:
            threading.Event().wait(max(0.0, self.origin + THREAD_AT - self.loop.now()))
            self.arm("E")
            self.arm("F")

        self.thread = threading.Thread(target=from_thread)
        self.thread.start()

    def check(self) -> None:
        assert self.thread is not None
        self.thread.join()
        assert self.early == 0
        assert set(self.date) == set(DUE)
        for name, due in DUE.items():  # as armed: a delay from a clock read just before
            assert due - 1e-6 <= self.date[name] <= due + 0.05, name
        assert self.group == GROUP
        assert self.loop.wakeups - self.wakeups_at_start == 4


def test_asyncio_hosted_and_owned_loops_make_the_same_wakeups_at_the_same_dates() -> None:
    with cadence.Loop() as loop:
        owned = Way(loop)
        owned.start()
        loop.run(END)
        owned.check()

    async def main() -> Way:
        with cadence.Loop() as loop, loop.attach_asyncio():
            hosted = Way(loop)
            hosted.start()
            await asyncio.sleep(END)
            hosted.check()  # the thread has armed long before: joining it blocks nothing
            return hosted

    hosted = asyncio.run(main())
    assert hosted.group == owned.group
    for name in DUE:
        assert hosted.date[name] == pytest.approx(owned.date[name], abs=0.05)


def test_timers_armed_by_asyncio_between_passes_share_one_wakeup() -> None:
    async def main() -> Way:
        with cadence.Loop() as loop, loop.attach_asyncio():
            way = Way(loop)
            way.wakeups_at_start = loop.wakeups
            way.origin = loop.now()

            def arm_a_and_b() -> None:  # asyncio's callback: the host's thread, between passes
                way.arm("A")
                way.arm("B")

            asyncio.get_running_loop().call_later(0.05, arm_a_and_b)
            await asyncio.sleep(0.05)
            # Both armed: the wake-up asked for is B's date, A's window holding it.
            await asyncio.sleep(0.01)
            assert loop.timeout() == pytest.approx(way.origin + DUE["B"] - loop.now(), abs=0.05)
            await asyncio.sleep(0.6)
            return way

    way = asyncio.run(main())
    assert way.early == 0
    assert way.group == {"A": 0, "B": 0}
    assert way.loop.closed
    assert DUE["B"] - 1e-6 <= way.date["B"] <= DUE["B"] + 0.05
