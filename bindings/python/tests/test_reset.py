"""ScheduledTimer.reset and the scheduled timer's schedule (fire_date, interval, tolerance) as
the Python face shows them. Ties, missed-tick lateness and reset's timelines are scenarios of the
corpus (Tests/Scenarios, run by test_scenarios.py)."""

from __future__ import annotations

import math
import threading

import pytest

import cadence
from cadence import Tick


def ms(seconds: float) -> int:
    return round(seconds * 1000)


def schedule_of(
    timer: cadence.ScheduledTimer,
) -> tuple[float | None, float | None, float | None, bool]:
    """The timer's fire date, interval, tolerance and whether it is pending, read now."""
    return (timer.fire_date, timer.interval, timer.tolerance, timer.pending)


# ---- Reset ----


def test_a_debounce_reset_a_thousand_times_fires_once_after_the_last(
    virtual_loop: cadence.Loop,
) -> None:
    fires: list[int] = []
    debounce = virtual_loop.schedule(0.2, lambda t: fires.append(ms(t.fire_date)))
    for _ in range(1000):
        virtual_loop.run(0.001)
        debounce.reset(0.2)
    assert ms(virtual_loop.now()) == 1000
    assert debounce.fire_date is not None
    assert ms(debounce.fire_date) == 1200
    virtual_loop.run(0.199)
    assert fires == []
    virtual_loop.run(1)
    assert fires == [1200]
    assert not debounce.pending
    with pytest.raises(cadence.AlreadyCancelled):
        debounce.reset(0.2)


def test_bad_resets_raise_and_leave_the_timer_as_it_was(virtual_loop: cadence.Loop) -> None:
    timer = virtual_loop.schedule(1, lambda t: None)
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(cadence.InvalidArgument, match=r"ScheduledTimer\.reset"):
            timer.reset(bad)
    with pytest.raises(TypeError):
        timer.reset("1")  # type: ignore[arg-type]
    assert timer.fire_date == 1.0
    timer.cancel()
    with pytest.raises(cadence.AlreadyCancelled):
        timer.reset(1)
    closed = virtual_loop.schedule(1, lambda t: None)
    closed.close()
    with pytest.raises(cadence.BadHandle):
        closed.reset(1)
    with pytest.raises(cadence.BadHandle):
        _ = closed.fire_date


# ---- Introspection ----


def test_a_one_shot_tells_its_schedule_until_it_fires(virtual_loop: cadence.Loop) -> None:
    seen: list[float | None] = []
    timer: cadence.ScheduledTimer | None = None

    def look(tick: Tick) -> None:
        assert timer is not None
        seen.append(timer.fire_date)

    timer = virtual_loop.schedule(1.5, look, tolerance=0.25)
    assert schedule_of(timer) == (1.5, 0.0, 0.25, True)
    virtual_loop.run(0.5)
    timer.reset(2)
    assert schedule_of(timer) == (2.5, 0.0, 0.25, True)
    virtual_loop.run(3)
    assert seen == [None]  # in its own callback a one-shot has ended
    assert schedule_of(timer) == (None, None, None, False)


def test_a_repeating_timer_tells_its_next_grid_point(virtual_loop: cadence.Loop) -> None:
    seen: list[str] = []
    timer: cadence.ScheduledTimer | None = None

    def look(tick: Tick) -> None:
        assert timer is not None
        seen.append(f"{tick.fire_date}->{timer.fire_date}")

    timer = virtual_loop.schedule(0.5, look, interval=0.25)
    assert schedule_of(timer) == (0.5, 0.25, 0.0, True)
    virtual_loop.run(0.75)
    assert seen == ["0.5->0.75", "0.75->1.0"]
    virtual_loop.jump_clock(0.6)
    assert schedule_of(timer)[0] == 1.0  # late: still on its grid
    virtual_loop.run(0)
    assert schedule_of(timer)[0] == 1.5
    timer.cancel()
    assert schedule_of(timer) == (None, None, None, False)


# ---- Reset against a fire on the loop's own thread ----


def test_a_reset_from_another_thread_wins_only_before_the_fire_starts() -> None:
    """The loop's lock decides: either the reset returned first and the one fire comes at the
    reset's fire date, or the callback had started, the reset raised AlreadyCancelled and the
    one fire was at the original date."""
    with cadence.Loop() as loop:
        loop.start_thread()
        try:
            for attempt in range(40):
                fired = threading.Event()
                dates: list[float] = []

                def on_fire(
                    tick: Tick, dates: list[float] = dates, fired: threading.Event = fired
                ) -> None:
                    dates.append(tick.fire_date)
                    fired.set()

                before = loop.now()
                timer = loop.schedule(0.002, on_fire)
                after = loop.now()
                reset_at = before + 0.0001 * (attempt % 30)
                while loop.now() < reset_at:
                    pass
                reset_start = loop.now()
                try:
                    timer.reset(0.01)
                    won = True
                except cadence.AlreadyCancelled:
                    won = False
                reset_end = loop.now()
                assert fired.wait(10)
                fired.clear()
                assert not fired.wait(0.02)  # one fire only
                assert len(dates) == 1
                if won:
                    assert reset_start + 0.01 - 1e-6 <= dates[0] <= reset_end + 0.01 + 1e-6
                else:
                    assert before + 0.002 - 1e-6 <= dates[0] <= after + 0.002 + 1e-6
                assert not timer.pending
        finally:
            loop.stop_thread()
