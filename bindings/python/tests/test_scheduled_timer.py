"""Scheduled timers: Loop.schedule."""

from __future__ import annotations

import gc
import math
import sys
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
    closed.close()  # close is cancel, then give up
    loop.schedule(0.02, lambda tick: order.append("dropped"))  # given up: fire-and-forget
    loop.run(0.08)
    assert order == ["b", "dropped", "a", "c"]  # fire-date order, ties in scheduling order


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


def test_repr_reads_the_live_schedule_and_callbacks_get_a_tick(virtual_loop: cadence.Loop) -> None:
    virtual = virtual_loop
    virtual.add_mode("ExampleModalMode")
    ticks: list[Tick] = []
    default = virtual.schedule(0.5, ticks.append)
    whole = virtual.schedule(1, ticks.append, tolerance=0.25)
    modal = virtual.schedule(0.25, ticks.append, mode="ExampleModalMode")
    zero = virtual.schedule(-0.0, ticks.append)  # -0.0 is zero
    assert repr(zero) == "<cadence.ScheduledTimer pending fire_date=0.0 interval=0.0 tolerance=0.0>"
    zero.cancel()
    assert repr(zero) == "<cadence.ScheduledTimer done>"
    assert repr(default) == (
        "<cadence.ScheduledTimer pending fire_date=0.5 interval=0.0 tolerance=0.0>"
    )
    assert repr(whole) == (
        "<cadence.ScheduledTimer pending fire_date=1.0 interval=0.0 tolerance=0.25>"
    )
    default.reset(0.75)  # the repr reads the engine: the new fire date
    assert repr(default) == (
        "<cadence.ScheduledTimer pending fire_date=0.75 interval=0.0 tolerance=0.0>"
    )
    virtual.run(2.0)
    assert ticks == [Tick(0.75, 0), Tick(1.0, 0)]
    assert all(type(tick) is Tick for tick in ticks)
    assert ticks[0].fire_date == 0.75
    assert ticks[0].skipped == 0
    assert repr(default) == "<cadence.ScheduledTimer done>"
    modal.close()
    assert repr(modal) == "<cadence.ScheduledTimer closed>"


def test_a_closed_timer_names_the_property_read(virtual_loop: cadence.Loop) -> None:
    timer = virtual_loop.schedule(1.0, lambda tick: None)
    timer.close()
    assert timer.closed
    with pytest.raises(
        cadence.BadHandle,
        match=r"^ScheduledTimer\.pending: cancellable must be a live cancellable handle, got 0x",
    ):
        _ = timer.pending
    with pytest.raises(cadence.BadHandle, match=r"^ScheduledTimer\.cancelled: cancellable must"):
        _ = timer.cancelled
    with pytest.raises(cadence.BadHandle, match=r"^ScheduledTimer\.fire_date: "):
        _ = timer.fire_date


def ms(ticks: list[Tick]) -> list[str]:
    """Fire dates in virtual ms, with the skipped count: "fire@ms/skipped"."""
    return [f"{round(tick.fire_date * 1000)}/{tick.skipped}" for tick in ticks]


def test_a_repeating_timer_keeps_its_grid_until_cancelled(virtual_loop: cadence.Loop) -> None:
    ticks: list[Tick] = []
    timer = virtual_loop.schedule(0.05, ticks.append, interval=0.1)
    assert repr(timer) == (
        "<cadence.ScheduledTimer pending fire_date=0.05 interval=0.1 tolerance=0.0>"
    )
    virtual_loop.run(0.36)
    assert ms(ticks) == ["50/0", "150/0", "250/0", "350/0"]
    assert timer.pending  # a repeating timer goes on after it fires
    assert virtual_loop.armed_timer_count == 1
    assert timer.cancel() is True
    assert timer.cancel() is False
    assert not timer.pending
    virtual_loop.run(1.0)
    assert len(ticks) == 4
    assert virtual_loop.armed_timer_count == 0


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (cadence.MissedTickPolicy.SKIP, ["1000/0", "4000/2", "5000/0"]),
        (cadence.MissedTickPolicy.BURST, ["1000/0", "2000/0", "3000/0", "4000/0", "5000/0"]),
        (cadence.MissedTickPolicy.DELAY, ["1000/0", "2000/0", "5500/0"]),
    ],
)
def test_a_late_repeating_timer_follows_its_missed_tick_policy(
    virtual_loop: cadence.Loop, policy: cadence.MissedTickPolicy, expected: list[str]
) -> None:
    ticks: list[Tick] = []
    timer = virtual_loop.schedule(1.0, ticks.append, interval=1.0, missed_ticks=policy)
    virtual_loop.run(1.0)
    virtual_loop.jump_clock(3.5)  # a blocked thread
    virtual_loop.run(1.0)
    assert ms(ticks) == expected
    assert timer.interval == 1.0
    timer.close()


def test_a_dropped_repeating_timer_stops_and_a_detached_one_runs_until_its_loop_closes(
    virtual_loop: cadence.Loop,
) -> None:
    ticks: list[Tick] = []
    with pytest.warns(ResourceWarning, match="still active"):
        virtual_loop.schedule(0.0, ticks.append, interval=0.5, mode="common")
    gc.collect()
    assert virtual_loop.armed_timer_count == 0
    kept: list[Tick] = []
    virtual_loop.schedule(0.0, kept.append, interval=0.5, mode="common").detach()
    gc.collect()
    virtual_loop.run(1.2)
    assert ms(ticks) == []
    assert ms(kept) == ["0/0", "500/0", "1000/0"]
    assert virtual_loop.armed_timer_count == 1
    virtual_loop.close()


def test_bad_repeating_arguments_schedule_nothing(virtual_loop: cadence.Loop) -> None:
    called: list[Tick] = []
    for interval in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(
            cadence.InvalidArgument,
            match=rf"^Loop\.schedule: interval must be > 0 and finite, got {interval!r}$",
        ):
            virtual_loop.schedule(0.0, called.append, interval=interval)
    with pytest.raises(cadence.InvalidArgument):
        virtual_loop.schedule(-1.0, called.append, interval=1.0)
    with pytest.raises(cadence.UnknownMode):
        virtual_loop.schedule(0.0, called.append, interval=1.0, mode="nope")
    with pytest.raises(TypeError, match="give interval"):
        virtual_loop.schedule(0.0, called.append, missed_ticks=cadence.MissedTickPolicy.BURST)
    with pytest.raises(TypeError, match="MissedTickPolicy"):
        virtual_loop.schedule(0.0, called.append, interval=1.0, missed_ticks=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="interval"):
        virtual_loop.schedule(0.0, called.append, interval="1")  # type: ignore[arg-type]
    virtual_loop.run(5.0)
    assert called == []
    assert virtual_loop.armed_timer_count == 0


def test_a_scheduled_timer_is_an_object_not_a_number(virtual_loop: cadence.Loop) -> None:
    """Identity semantics, as asyncio's TimerHandle: ``==`` and ``hash`` by identity, no
    arithmetic, and the handle is C's, read through ``_handle``."""
    first = virtual_loop.schedule(1.0, print)
    second = virtual_loop.schedule(1.0, print)
    assert first == first
    assert first != second
    assert hash(first) == object.__hash__(first)
    assert len({first, second, first}) == 2
    assert not isinstance(first, int)
    with pytest.raises(TypeError):
        _ = first + 1  # type: ignore[operator]
    with pytest.raises(TypeError):
        int(first)  # type: ignore[call-overload]
    assert type(first._handle) is int
    assert first._handle != second._handle
    with pytest.raises(AttributeError):
        first.extra = 1  # type: ignore[attr-defined]  # __slots__: nothing else per timer
    assert first.cancel()
    assert second.cancel()


def test_a_timer_and_its_handle_stay_small(loop: cadence.Loop) -> None:
    """What keeps a pending timer under asyncio's bytes (make bench's ``bytes_per_timer``): its
    handle is an int below 2**60, two 30-bit digits (a 32-byte block; three digits take 48), and
    the callback table grows by 64 keys, whose spare keys wait as int objects."""
    from cadence import _table

    count = len(_table._free) + 1000  # past the keys other tests freed: the table grows
    timers = [loop.schedule(3600.0, lambda tick: None) for _ in range(count)]
    timers += [loop.schedule(3600.0, lambda tick: None, tolerance=0.5) for _ in range(10)]
    handles = [timer._handle for timer in timers]
    assert all(0 < handle < 2**60 for handle in handles)
    assert max(map(sys.getsizeof, handles)) <= 32
    assert len(_table._free) < 64
    assert len(_table.slots) % 128 == 2  # key 0, then chunks of 64 keys, each with its owner
    for timer in timers:
        timer.cancel()
