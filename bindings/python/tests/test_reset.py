"""Ties, missed-tick lateness, ScheduledTimer.reset and the scheduled timer's schedule
(fire_date, interval, tolerance), the same cases as the Swift and C tests."""

from __future__ import annotations

import math
import threading
from typing import Callable

import pytest

import cadence
from cadence import MissedTickPolicy, Tick


def ms(seconds: float) -> int:
    return round(seconds * 1000)


def schedule_of(
    timer: cadence.ScheduledTimer,
) -> tuple[float | None, float | None, float | None, bool]:
    """The timer's fire date, interval, tolerance and whether it is pending, read now."""
    return (timer.fire_date, timer.interval, timer.tolerance, timer.pending)


# ---- Ties: scheduling order on every tick ----


@pytest.mark.parametrize(("first", "second"), [(0.3, 0.5), (0.5, 0.3)])
def test_repeating_timers_keep_their_place_on_ties(
    virtual_loop: cadence.Loop, first: float, second: float
) -> None:
    log: list[str] = []

    def recorder(interval: float) -> Callable[[Tick], object]:
        return lambda tick: log.append(f"{interval}@{ms(tick.fire_date)}")

    for interval in (first, second):
        virtual_loop.schedule(interval, recorder(interval), interval=interval)
    virtual_loop.run(1.5)
    assert [e for e in log if e.endswith("@1500")] == [f"{first}@1500", f"{second}@1500"]


def test_publishers_and_autoconnect_keep_their_place_on_ties(virtual_loop: cadence.Loop) -> None:
    log: list[str] = []
    fast, slow = virtual_loop.publish(0.3), virtual_loop.publish(0.5)
    fast.sink(lambda t: log.append(f"0.3@{ms(t.fire_date)}"))
    slow.sink(lambda t: log.append(f"0.5@{ms(t.fire_date)}"))
    fast.connect()
    slow.connect()
    auto_fast = virtual_loop.publish(0.3).autoconnect()
    auto_slow = virtual_loop.publish(0.5).autoconnect()
    auto_fast.sink(lambda t: log.append(f"auto 0.3@{ms(t.fire_date)}"))
    auto_slow.sink(lambda t: log.append(f"auto 0.5@{ms(t.fire_date)}"))
    virtual_loop.run(1.5)
    assert [e for e in log if e.endswith("@1500")] == [
        "0.3@1500",
        "0.5@1500",
        "auto 0.3@1500",
        "auto 0.5@1500",
    ]


def test_a_reset_timer_goes_after_the_others_due_then(virtual_loop: cadence.Loop) -> None:
    log: list[str] = []
    a = virtual_loop.schedule(1, lambda t: log.append("a"))
    virtual_loop.schedule(1, lambda t: log.append("b"))
    virtual_loop.schedule(0.5, lambda t: log.append("r"), interval=0.5)
    a.reset(1)
    virtual_loop.run(1)
    assert log == ["r", "b", "r", "a"]  # r was scheduled before the reset


# ---- Missed ticks: lateness below, at and above one interval ----


def timeline(
    loop: cadence.Loop, policy: MissedTickPolicy, blocked_until: int, tolerance: float = 0.0
) -> list[str]:
    """A 50 ms timer whose loop is blocked until ``blocked_until`` ms, then run to 250 ms: each
    fire as "fire date@clock/skipped", in ms."""
    log: list[str] = []

    def record(tick: Tick) -> None:
        log.append(f"{ms(tick.fire_date)}@{ms(loop.now())}/{tick.skipped}")

    loop.schedule(0.05, record, interval=0.05, tolerance=tolerance, missed_ticks=policy)
    loop.advance_clock(blocked_until / 1000)
    loop.run((250 - blocked_until) / 1000)
    return log


SKIP, BURST, DELAY = MissedTickPolicy.SKIP, MissedTickPolicy.BURST, MissedTickPolicy.DELAY
ON_GRID = ["100@100/0", "150@150/0", "200@200/0", "250@250/0"]


@pytest.mark.parametrize(
    ("policy", "blocked_until", "tolerance", "expected"),
    [
        (SKIP, 70, 0.0, ["50@70/0", *ON_GRID]),
        (SKIP, 100, 0.0, ["100@100/1", *ON_GRID[1:]]),
        (SKIP, 130, 0.0, ["100@130/1", *ON_GRID[1:]]),
        (BURST, 70, 0.0, ["50@70/0", *ON_GRID]),
        (BURST, 100, 0.0, ["50@100/0", *ON_GRID]),
        (BURST, 130, 0.0, ["50@130/0", "100@130/0", *ON_GRID[1:]]),
        (DELAY, 70, 0.0, ["50@70/0", "120@120/0", "170@170/0", "220@220/0"]),
        (DELAY, 100, 0.0, ["50@100/0", *ON_GRID[1:]]),
        (DELAY, 130, 0.0, ["50@130/0", "180@180/0", "230@230/0"]),
        # Within the tolerance window, or within 5 ms: the grid stays.
        (DELAY, 70, 0.03, ["50@70/0", *ON_GRID]),
        (DELAY, 53, 0.0, ["50@53/0", *ON_GRID]),
        # A tolerance wider than the interval does not keep a grid whose next point has passed.
        (DELAY, 130, 0.2, ["50@130/0", "180@180/0", "230@230/0"]),
    ],
)
def test_missed_tick_policies_after_lateness_below_at_and_above_one_interval(
    virtual_loop: cadence.Loop,
    policy: MissedTickPolicy,
    blocked_until: int,
    tolerance: float,
    expected: list[str],
) -> None:
    assert timeline(virtual_loop, policy, blocked_until, tolerance) == expected


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


def test_a_repeating_timer_starts_a_new_grid_at_its_reset(virtual_loop: cadence.Loop) -> None:
    log: list[str] = []
    timer = virtual_loop.schedule(
        1, lambda t: log.append(f"{ms(t.fire_date)}@{ms(virtual_loop.now())}"), interval=1
    )
    virtual_loop.run(1.5)
    timer.reset(0.25)
    virtual_loop.run(2.5)
    assert log == ["1000@1000", "1750@1750", "2750@2750", "3750@3750"]


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
    virtual_loop.advance_clock(0.6)
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
