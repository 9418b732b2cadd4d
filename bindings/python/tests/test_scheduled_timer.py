"""Scheduled timers: Loop.schedule."""

from __future__ import annotations

import time

import pytest

import cadence
from cadence import Tick


def test_scheduled_timer_fires_once_on_time(loop: cadence.Loop) -> None:
    ticks: list[Tick] = []
    before = loop.now()
    timer = loop.schedule(0.05, ticks.append)
    after = loop.now()
    assert timer.pending
    assert "ScheduledTimer pending" in repr(timer)
    loop.run(0.15)
    assert len(ticks) == 1
    assert before + 0.05 <= ticks[0].fire_date <= after + 0.05 + 1e-6
    assert ticks[0].skipped == 0
    assert not timer.pending
    assert timer.cancelled  # the C API reports a fired timer as done
    assert timer.cancel() is False
    assert "ScheduledTimer done" in repr(timer)


def test_a_cancelled_timer_never_fires_and_order_is_by_fire_date(loop: cadence.Loop) -> None:
    order: list[str] = []
    loop.schedule(0.03, lambda tick: order.append("a"))
    cancelled = loop.schedule(0.02, lambda tick: order.append("never"))
    loop.schedule(0.01, lambda tick: order.append("b"))
    loop.schedule(0.03, lambda tick: order.append("c"))
    assert cancelled.cancel() is True
    assert cancelled.cancel() is False
    closed = loop.schedule(0.02, lambda tick: order.append("closed"))
    closed.close()  # releasing the handle does not cancel the call
    loop.run(0.08)
    assert order == ["b", "closed", "a", "c"]  # fire-date order, ties in scheduling order


def test_scheduled_timer_in_another_mode_waits_for_it(loop: cadence.Loop) -> None:
    loop.add_mode("ExampleModalMode")
    ticks: list[Tick] = []
    timer = loop.schedule(0.01, ticks.append, mode="ExampleModalMode")
    loop.run(0.04)
    assert ticks == []
    assert timer.pending
    loop.run(0.0, mode="ExampleModalMode")
    assert len(ticks) == 1


def test_zero_delay_self_rescheduling_does_not_starve_the_loop(loop: cadence.Loop) -> None:
    count = 0

    def again(tick: Tick) -> None:
        nonlocal count
        count += 1
        loop.schedule(0.0, again)

    loop.schedule(0.0, again)
    started = time.monotonic()
    loop.run(0.05)
    assert time.monotonic() - started < 1.0  # run returned: each re-armed timer waits a pass
    assert count >= 2


def test_repr_names_the_delay_and_mode_and_callbacks_get_a_tick(virtual_loop: cadence.Loop) -> None:
    virtual = virtual_loop
    virtual.add_mode("ExampleModalMode")
    ticks: list[Tick] = []
    default = virtual.schedule(0.5, ticks.append)
    whole = virtual.schedule(1, ticks.append)
    modal = virtual.schedule(0.25, ticks.append, mode="ExampleModalMode")
    zero = virtual.schedule(-0.0, ticks.append)  # -0.0 is zero, and shows as 0.0
    assert repr(zero) == "<cadence.ScheduledTimer pending after 0.0 s in mode 'default'>"
    zero.cancel()
    assert repr(default) == "<cadence.ScheduledTimer pending after 0.5 s in mode 'default'>"
    assert repr(whole) == "<cadence.ScheduledTimer pending after 1.0 s in mode 'default'>"
    assert repr(modal) == (
        "<cadence.ScheduledTimer pending after 0.25 s in mode 'ExampleModalMode'>"
    )
    virtual.run(2.0)
    assert ticks == [Tick(0.5, 0), Tick(1.0, 0)]
    assert all(type(tick) is Tick for tick in ticks)
    assert ticks[0].fire_date == 0.5
    assert ticks[0].skipped == 0
    modal.close()
    assert repr(modal) == "<cadence.ScheduledTimer closed after 0.25 s in mode 'ExampleModalMode'>"


def test_a_closed_timer_names_the_property_read(virtual_loop: cadence.Loop) -> None:
    timer = virtual_loop.schedule(1.0, lambda tick: None)
    timer.close()
    with pytest.raises(cadence.BadHandle, match=r"ScheduledTimer\.pending on a closed"):
        _ = timer.pending
    with pytest.raises(cadence.BadHandle, match=r"ScheduledTimer\.cancelled on a closed"):
        _ = timer.cancelled
