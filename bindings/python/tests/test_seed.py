"""The timer behaviours measured in the seed article, with the article's own windows."""

from __future__ import annotations

import math
import time

import cadence
from cadence import Tick


def on_grid(dates: list[float], interval: float) -> bool:
    """Whether every date is a whole number of intervals after the first."""
    steps = [(date - dates[0]) / interval for date in dates]
    return all(abs(step - round(step)) < 1e-3 for step in steps)


def test_a_timer_publisher_must_be_connected(loop: cadence.Loop) -> None:
    # A loop that nobody runs fires nothing, however long we wait (the background-thread case).
    unrun = cadence.Loop()
    unrun_ticks: list[Tick] = []
    unrun.publish(0.05, mode="common").autoconnect().sink(unrun_ticks.append)

    ticks: list[Tick] = []
    manual = loop.publish(0.05, mode="common")
    handle = manual.sink(ticks.append)
    loop.run(0.3)
    assert ticks == []  # subscribed, but never connected

    connection = manual.connect()
    loop.run(0.31)
    assert 5 <= len(ticks) <= 7  # about one tick every 50 ms
    assert on_grid([tick.fire_date for tick in ticks], 0.05)
    assert connection.cancel() is True
    at_stop = len(ticks)
    loop.run(0.2)
    assert len(ticks) == at_stop  # cancelling the connection stopped the timer
    assert connection.cancelled
    assert not handle.cancelled  # the subscriber was not cancelled, it just hears nothing

    assert unrun_ticks == []
    unrun.close()


def test_autoconnect_shares_one_timer_and_restarts(loop: cadence.Loop) -> None:
    early: list[float] = []
    late: list[float] = []
    shared = loop.publish(0.1, mode="common").autoconnect()
    early_handle = shared.sink(lambda tick: early.append(tick.fire_date))
    loop.run(0.25)
    late_handle = shared.sink(lambda tick: late.append(tick.fire_date))
    loop.run(0.3)
    assert len(early) > len(late) > 0
    assert set(late) <= set(early)  # the same ticks, not a second timer
    assert on_grid(early, 0.1)

    early_handle.cancel()
    late_handle.cancel()
    when_idle = len(early) + len(late)
    loop.run(0.3)
    assert len(early) + len(late) == when_idle  # no subscribers, no timer

    restarted: list[float] = []
    before = loop.now()
    restarted_handle = shared.sink(lambda tick: restarted.append(tick.fire_date))
    after = loop.now()
    loop.run(0.35)
    assert len(restarted) >= 2  # a new subscriber started it again
    # ... on a fresh grid: first fire one interval after the new subscriber arrived.
    assert before + 0.1 <= restarted[0] <= after + 0.1 + 1e-6
    assert restarted_handle.cancel() is True


def test_default_mode_timer_pauses_in_a_custom_common_mode(loop: cadence.Loop) -> None:
    loop.add_common_mode("ExampleTrackingMode")
    loop.add_common_mode("ExampleTrackingMode")  # harmless twice; modes compare by name
    default_ticks: list[Tick] = []
    common_ticks: list[Tick] = []
    default_handle = loop.publish(0.05, mode="default").autoconnect().sink(default_ticks.append)
    common_handle = loop.publish(0.05, mode="common").autoconnect().sink(common_ticks.append)

    loop.run(0.5, mode="ExampleTrackingMode")  # as if the user were dragging for half a second
    assert default_ticks == []
    assert len(common_ticks) >= 8

    # A plain custom mode is not common: neither timer fires in it.
    loop.add_mode("ExampleModalMode")
    common_so_far = len(common_ticks)
    loop.run(0.12, mode="ExampleModalMode")
    assert default_ticks == []
    assert len(common_ticks) == common_so_far

    # Back in the default mode, the overdue default timer fires once (skip), never in a burst.
    loop.run(0.0)
    assert len(default_ticks) == 1
    assert default_ticks[0].skipped >= 8
    default_handle.cancel()
    common_handle.cancel()


def test_missed_ticks_are_skipped_not_replayed(loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    blocked_handle = loop.publish(0.1, mode="common").autoconnect().sink(fires.append)
    start = loop.now()
    loop.run(0.25)
    time.sleep(0.55)  # the loop's thread is blocked
    loop.run(0.35)
    blocked_handle.cancel()

    dates = [tick.fire_date for tick in fires]
    gaps = [later - earlier for earlier, later in zip(dates, dates[1:])]
    assert any(gap > 0.5 for gap in gaps)  # one long gap where ticks were skipped
    assert on_grid(dates, 0.1)  # ... and the fires after it are back on the original grid
    assert max(tick.skipped for tick in fires) >= 4  # the callback is told how many
    # Each fire moves one grid point plus the ones it skipped: nothing lost, nothing doubled.
    assert math.isclose(
        (dates[-1] - dates[0]) / 0.1,
        len(fires) - 1 + sum(tick.skipped for tick in fires[1:]),
        abs_tol=1e-3,
    )
    wall_clock_elapsed = dates[-1] - start
    assert wall_clock_elapsed - len(fires) * 0.1 > 0.3  # counting ticks badly undercounts time


def test_tolerance_fires_late_within_it_never_early(loop: cadence.Loop) -> None:
    interval, tolerance = 0.1, 0.05
    fires: list[Tick] = []
    lateness: list[float] = []

    def on_tick(tick: Tick) -> None:
        lateness.append(loop.now() - tick.fire_date)
        fires.append(tick)

    handle = loop.publish(interval, tolerance=tolerance, mode="common").autoconnect().sink(on_tick)
    loop.run(1.05)
    handle.cancel()

    assert len(fires) >= 9
    assert min(lateness) >= 0.0  # never early (same clock, so exact)
    # Within the tolerance; 50 ms more is allowed for a loaded machine, where a busy loop may be
    # later than the tolerance (the contract's one exception).
    assert max(lateness) <= tolerance + 0.05
    assert on_grid([tick.fire_date for tick in fires], interval)  # tolerance does not accumulate
    assert loop.wakeups <= 2 * len(fires) + 2  # it slept between fires: no polling
