"""Coalescing at scale in virtual time: 1000 repeating timers with tolerance, their wake-ups
against the optimum, and what running in slices (Ctrl-C support) does to them."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Callable

import pytest

import cadence
from cadence import Tick

TIMERS = 1000
INTERVAL_US = 1_000_000
RUN = 10.0


def us(seconds: float) -> int:
    """Virtual seconds as whole microseconds (phases are whole microseconds: dates are exact)."""
    return round(seconds * 1e6)


def optimum_wakeups(fire_dates: list[int], width: int) -> int:
    """The fewest wake-ups serving every window [F, F + width] (interval stabbing): sorted by
    window end, stab at the end of the first window not yet stabbed."""
    stabs = 0
    stab = None
    for fire in sorted(fire_dates):
        if stab is None or fire > stab:
            stab = fire + width
            stabs += 1
    return stabs


class Schedule:
    """1000 timers, interval 1 s, connected at pseudo-random phases in [0, 1) s (fixed seed)."""

    def __init__(self, tolerance: float) -> None:
        self.loop = cadence.Loop.virtual()
        self.tolerance_us = us(tolerance)
        self.fired: list[tuple[int, int]] = []  # (fire date, ran at), µs
        self.counts = [0] * TIMERS
        self.handles: list[tuple[cadence.Subscription, cadence.Connection]] = []
        rng = random.Random(20261130)
        self.phases = sorted(rng.randrange(INTERVAL_US) for _ in range(TIMERS))
        clock = 0
        for index, phase in enumerate(self.phases):
            self.loop.jump_clock((phase - clock) / 1e6)
            clock = phase
            assert us(self.loop.now()) == phase
            publisher = self.loop.publish(1.0, tolerance=tolerance)
            self.handles.append((publisher.subscribe(self._recorder(index)), publisher.connect()))
        assert self.loop.armed_timer_count == TIMERS
        assert self.loop.wakeups == 0  # moving the clock is not waking

    def _recorder(self, index: int) -> Callable[[Tick], None]:
        def record(tick: Tick) -> None:
            now = self.loop.now()
            assert now >= tick.fire_date  # never early
            fire, ran = us(tick.fire_date), us(now)
            assert 0 <= ran - fire <= self.tolerance_us
            assert tick.skipped == 0
            self.counts[index] += 1
            assert fire == self.phases[index] + self.counts[index] * INTERVAL_US  # on the grid
            self.fired.append((fire, ran))

        return record

    @property
    def fire_dates(self) -> list[int]:
        return [fire for fire, _ in self.fired]


@pytest.fixture
def schedules() -> Iterator[list[Schedule]]:
    made: list[Schedule] = []
    yield made
    for schedule in made:
        schedule.loop.close()


def make(schedules: list[Schedule], tolerance: float) -> Schedule:
    schedule = Schedule(tolerance)
    schedules.append(schedule)
    return schedule


def test_1000_timers_with_tolerance_wake_near_the_optimum(schedules: list[Schedule]) -> None:
    coalesced = make(schedules, 0.1)
    coalesced.loop.run(RUN)
    end = coalesced.phases[-1] + us(RUN)
    assert us(coalesced.loop.now()) == end
    # Every grid point whose window closed within the run fired, and none after the end.
    for phase, count in zip(coalesced.phases, coalesced.counts):
        last = phase + count * INTERVAL_US
        assert last <= end < last + INTERVAL_US + coalesced.tolerance_us
    optimum = optimum_wakeups(coalesced.fire_dates, coalesced.tolerance_us)
    # The last group may fire in the pass that ends the run, which is not a wake-up.
    assert optimum - 1 <= coalesced.loop.wakeups <= 1.1 * optimum
    assert 80 <= optimum <= 120  # about one wake-up per 0.1 s

    exact = make(schedules, 0.0)
    exact.loop.run(RUN)
    assert len(exact.fired) == 10 * TIMERS
    dates = len(set(exact.fire_dates))
    assert dates > 9 * TIMERS  # a few phases may coincide
    assert dates - 1 <= exact.loop.wakeups <= dates
    assert exact.loop.wakeups > 50 * coalesced.loop.wakeups
