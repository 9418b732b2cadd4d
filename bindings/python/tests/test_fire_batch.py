"""One-shot fires delivered a batch per C call (cadence_loop_set_fire_batch, cadence._batch),
with every promise of one call per fire kept: fire-date order and dates, at most 256 per batch,
an exception routed as before, no callback once ``cancel()`` (or ``close()``) has returned,
whether the cancel comes from an earlier callback of the same batch or from another thread, and
a later one-shot of the batch seen from an earlier callback as without a batch: pending, with its
fire date, reset and cancelled by C itself."""

from __future__ import annotations

import threading
import time
from typing import Callable

import pytest

import cadence
from cadence import _batch, _table


def live_keys() -> int:
    return _table.held()


def test_batches_keep_fire_date_order_and_dates(
    virtual_loop: cadence.Loop, monkeypatch: pytest.MonkeyPatch
) -> None:
    fired: list[tuple[int, cadence.Tick]] = []
    sizes: set[int] = set()  # the sizes of the batches delivered
    keys = live_keys()
    read = _batch.Views.read

    def reading(views: _batch.Views, address: int, count: int, started: int) -> object:
        sizes.add(count)
        return read(views, address, count, started)

    monkeypatch.setattr(_batch.Views, "read", reading)

    def record(k: int) -> Callable[[cadence.Tick], None]:
        def call(tick: cadence.Tick) -> None:
            fired.append((k, tick))

        return call

    timers = [virtual_loop.schedule((601 - k) * 0.001, record(k)) for k in range(1, 601)]
    virtual_loop.jump_clock(0.7)
    virtual_loop.run_pass()
    assert [k for k, _ in fired] == list(range(600, 0, -1))
    for k, tick in fired:
        assert tick.skipped == 0
        assert -1e-12 <= tick.fire_date - (601 - k) * 0.001 < 2e-9  # whole ns, rounded up
    assert sizes == {256, 88}  # 256 + 256 + 88
    assert all(not t.pending for t in timers)
    assert live_keys() == keys  # every key given back


def test_cancel_from_an_earlier_callback_of_the_batch(virtual_loop: cadence.Loop) -> None:
    calls: list[str] = []
    results: dict[str, object] = {}
    keys = live_keys()

    def first(tick: cadence.Tick) -> None:
        calls.append("first")
        results["pending before"] = second.pending
        results["cancel"] = second.cancel()
        results["pending after"] = second.pending
        results["again"] = second.cancel()

    def third(tick: cadence.Tick) -> None:
        calls.append("third")
        results["earlier"] = one.cancel()  # its callback has run: False

    one = virtual_loop.schedule(1.0, first)
    second = virtual_loop.schedule(1.0, lambda tick: calls.append("second"))
    virtual_loop.schedule(1.0, third)
    virtual_loop.run(2.0)
    assert calls == ["first", "third"]
    assert results == {
        "pending before": True,
        "cancel": True,
        "pending after": False,
        "again": False,
        "earlier": False,
    }
    assert virtual_loop.armed_timer_count == 0
    assert not virtual_loop.alive()
    assert live_keys() == keys


def test_close_from_an_earlier_callback_of_the_batch(virtual_loop: cadence.Loop) -> None:
    calls: list[str] = []
    keys = live_keys()
    virtual_loop.schedule(1.0, lambda tick: later.close())
    later = virtual_loop.schedule(1.0, lambda tick: calls.append("later"))
    virtual_loop.run(2.0)
    assert calls == []
    assert later.closed
    assert live_keys() == keys


def test_an_exception_is_raised_and_the_batch_goes_on(virtual_loop: cadence.Loop) -> None:
    calls: list[int] = []

    def boom(tick: cadence.Tick) -> None:
        raise ValueError("boom")

    virtual_loop.schedule(1.0, lambda tick: calls.append(1))
    virtual_loop.schedule(1.0, boom)
    virtual_loop.schedule(1.0, lambda tick: calls.append(3))
    with pytest.raises(ValueError, match="boom"):
        virtual_loop.run(2.0)
    assert calls == [1, 3]  # the rest of the pass runs, as without batches


def test_cancel_from_another_thread_during_the_batch() -> None:
    calls: list[str] = []
    started, cancelling = threading.Event(), threading.Event()

    def first(tick: cadence.Tick) -> None:
        calls.append("first")
        started.set()
        assert cancelling.wait(10)
        time.sleep(0.05)  # the cancel is on its way: C makes it wait for the batch

    with cadence.Loop() as loop:
        loop.schedule(0.0, first)
        second = loop.schedule(0.0, lambda tick: calls.append("second"))
        loop.start_thread()
        assert started.wait(10)
        cancelling.set()
        result = second.cancel()
        seen = list(calls)
        loop.stop_thread()
    # Either way no callback of `second` starts after the cancel returned.
    assert (result, seen, calls) in [
        (False, ["first", "second"], ["first", "second"]),
        (True, ["first"], ["first"]),
    ]


def test_a_later_one_shot_of_the_batch_is_still_due(virtual_loop: cadence.Loop) -> None:
    # As without a batch (and in C and Swift): from an earlier callback of the same pass, a later
    # one-shot is pending with its fire date and can be reset; the running one has fired.
    seen: dict[str, object] = {}
    calls: list[tuple[str, float]] = []
    timers: list[cadence.ScheduledTimer] = []
    keys = live_keys()

    def first(tick: cadence.Tick) -> None:
        own, later = timers
        seen["own"] = (own.pending, own.fire_date, own.cancel())
        with pytest.raises(cadence.AlreadyCancelled):
            own.reset(1.0)
        seen["later"] = (later.pending, later.fire_date, virtual_loop.armed_timer_count)
        later.reset(1.0)
        seen["moved"] = (later.pending, later.fire_date)

    timers.append(virtual_loop.schedule(1.0, first))
    timers.append(virtual_loop.schedule(1.0, lambda tick: calls.append(("later", tick.fire_date))))
    virtual_loop.run(1.5)
    assert seen == {
        "own": (False, None, False),
        "later": (True, 1.0, 1),
        "moved": (True, 2.0),
    }
    assert calls == []  # its record was skipped
    assert timers[1].pending
    virtual_loop.run(1.0)
    assert calls == [("later", 2.0)]
    assert not timers[1].pending
    assert live_keys() == keys
