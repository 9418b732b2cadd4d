"""cadence.asyncio hands its timers' starts and cancels to C once per loop turn
(``_asyncio_pending``): every guarantee of a timer armed or cancelled at once still holds. No
callback after ``cancel()`` returns; fire-date order and never early, however late the start
reaches C; what Cadence's API reads sees every start and cancel made before; no key or handle
leaks; timers made before the loop runs, on a loop closed meanwhile, and a flush that fails."""

from __future__ import annotations

import asyncio
import gc
import threading
import time

import pytest

import cadence
import cadence.asyncio as ca
from cadence import _state, _table
from cadence._asyncio_timer import Timer
from cadence.errors import LoopBusy


def live_keys(loop: asyncio.AbstractEventLoop) -> int:
    """The keys held for C: the callback table's and the event loop's table of armed timers."""
    assert isinstance(loop, ca.EventLoop)
    return _table.held() + loop._armed.held()


def cadence_of(timer: object) -> int | None:
    """The timer's ``_cadence``: its C handle, -1 before the flush, None once it has ended."""
    assert isinstance(timer, Timer)
    return timer._cadence


def settle(loop: asyncio.AbstractEventLoop, seconds: float = 0.05) -> None:
    loop.run_until_complete(asyncio.sleep(seconds))


def nan_date(loop: ca.EventLoop, index: int) -> None:
    """Gives the pending start at ``index`` a NaN date, which C refuses (a date is checked when
    made, so only this way can a start fail)."""
    loop._pending.timers[index]._date = float("nan")


def test_no_callback_after_cancel_whether_or_not_the_start_reached_c() -> None:
    loop = ca.EventLoop()
    keys = live_keys(loop)
    try:
        calls: list[str] = []
        pending = loop.call_later(0, calls.append, "pending")  # cancelled before any flush
        armed = loop.call_later(0.001, calls.append, "armed")
        assert loop.cadence.armed_timer_count == 2  # a read hands both starts to C
        kept = loop.call_later(0.002, calls.append, "kept")
        pending.cancel()
        assert loop.cadence.armed_timer_count == 2  # kept's start went over, pending's did not
        time.sleep(0.005)  # both due in C before anything runs the loop
        armed.cancel()
        settle(loop)
        assert calls == ["kept"]
        assert loop.cadence.armed_timer_count == 0
        del pending, armed, kept
        gc.collect()
        assert live_keys(loop) == keys
    finally:
        loop.close()


def test_a_cadence_callback_cancels_an_asyncio_timer_due_in_the_same_pass() -> None:
    # Cadence's own one-shot and the asyncio timer are due at the same virtual date, the own one
    # first: its callback cancels the asyncio timer while C is handing over that pass's fires.
    loop = ca.VirtualEventLoop()
    keys = live_keys(loop)
    try:
        calls: list[str] = []
        later: list[asyncio.TimerHandle] = []
        own = loop.cadence.schedule(1.0, lambda _: later[0].cancel())
        later.append(loop.call_at(1.0, calls.append, "asyncio"))
        settle(loop, 2.0)
        assert calls == []
        assert loop.cadence.armed_timer_count == 0
        del own
        later.clear()
        gc.collect()
        assert live_keys(loop) == keys
    finally:
        loop.close()


def test_dates_are_absolute_so_a_late_flush_keeps_order_and_is_never_early() -> None:
    loop = ca.EventLoop()
    try:
        base = loop.time()
        fired: list[tuple[int, float, float]] = []
        for index in range(20):  # made in reverse date order, 50 us apart, while time passes
            when = base + 0.02 - index * 50e-6
            loop.call_at(when, lambda i=index, w=when: fired.append((i, w, time.monotonic())))
            time.sleep(0.0002)
        settle(loop, 0.05)
        assert [i for i, _, _ in fired] == list(range(19, -1, -1))
        assert all(at >= when for _, when, at in fired)
    finally:
        loop.close()


def test_virtual_dates_are_exact_and_ties_keep_call_order_with_cadences_own_timers() -> None:
    # Cadence's own callbacks run during the pass, asyncio's after it (from the ready queue): the
    # own one sees which asyncio timers C has fired before it (their _cadence is then None).
    loop = ca.VirtualEventLoop()
    try:
        seen: list[tuple[object, ...]] = []
        first = loop.call_at(1.3, lambda: seen.append(("first", loop.time())))
        assert isinstance(first, Timer)
        loop.cadence.schedule(
            1.3,
            lambda tick: seen.append(("own", tick.fire_date, cadence_of(first), cadence_of(third))),
        )
        third = loop.call_at(1.3, lambda: seen.append(("third", loop.time())))
        assert isinstance(third, Timer)
        loop.call_at(0.7, lambda: seen.append(("early", loop.time())))
        settle(loop, 2.0)
        own = seen[1]
        assert own[:3] == ("own", 1.3, None)
        assert isinstance(own[3], int)
        assert own[3] > 0
        assert [seen[0], seen[2], seen[3]] == [("early", 0.7), ("first", 1.3), ("third", 1.3)]
    finally:
        loop.close()


def test_timers_made_before_the_loop_runs_are_armed_when_anything_looks() -> None:
    loop = ca.VirtualEventLoop()
    try:
        calls: list[float] = []
        made = [loop.call_later(d, lambda: calls.append(loop.time())) for d in (3.0, 1.0, 2.0)]
        handles = [h for h in made if isinstance(h, Timer)]
        assert len(handles) == 3
        assert all(h._cadence == -1 for h in handles)  # not in C yet
        assert loop.cadence.timeout() == 1.0  # the read flushed them
        assert all(h._cadence is not None and h._cadence > 0 for h in handles)
        settle(loop, 5.0)
        assert calls == [1.0, 2.0, 3.0]
    finally:
        loop.close()


def test_closing_forgets_pending_starts_and_makes_pending_cancels() -> None:
    given = cadence.Loop()
    loop = ca.EventLoop(given)
    keys = live_keys(loop)
    armed = loop.call_later(60, print)
    assert given.armed_timer_count == 1
    armed.cancel()  # pending cancel: made by close()
    pending = loop.call_later(60, print)  # pending start: forgotten by close()
    loop.close()
    try:
        assert given.armed_timer_count == 0
        assert pending._cadence is None  # type: ignore[attr-defined]
        pending.cancel()  # quiet
        with pytest.raises(RuntimeError, match="closed"):
            loop.call_later(1, print)
        assert type(given._state) is _state.LoopState  # the loop is its own again
        del armed, pending
        gc.collect()
        assert live_keys(loop) == keys
    finally:
        given.close()


def test_a_flush_that_fails_raises_from_the_run_and_leaks_nothing() -> None:
    loop = ca.EventLoop()
    keys = live_keys(loop)
    try:
        calls: list[str] = []
        timer = loop.call_later(0, calls.append, "never")
        nan_date(loop, 0)  # C refuses it (a date is checked when made)
        with pytest.raises(cadence.InvalidArgument, match=r"EventLoop\.call_at"):
            loop.run_until_complete(asyncio.sleep(0.01))
        assert timer._cadence is None  # type: ignore[attr-defined]
        assert calls == []
        loop.call_soon(loop.stop)
        loop.run_forever()  # nothing pending any more: the loop goes on
        del timer
        gc.collect()
        assert live_keys(loop) == keys
    finally:
        loop.close()


def test_the_cadence_loop_under_an_event_loop_is_not_closed_before_it() -> None:
    given = cadence.Loop()
    loop = ca.EventLoop(given)
    try:
        with pytest.raises(LoopBusy, match=r"Loop\.close: .*close the event loop first"):
            given.close()
        assert not given.closed
        assert loop.run_until_complete(asyncio.sleep(0.001, "still works")) == "still works"
    finally:
        loop.close()
    given.close()  # the event loop is closed: its Cadence loop may be
    assert given.closed


def test_closing_an_event_loop_cancels_its_timers_in_the_loop_it_was_given() -> None:
    given = cadence.Loop()
    loop = ca.EventLoop(given)
    keys = live_keys(loop)
    calls: list[str] = []

    async def arm() -> None:
        running = asyncio.get_running_loop()
        for name in "abc":
            running.call_later(0.2, calls.append, name)
        await asyncio.sleep(0)  # a turn: the starts are in C

    try:
        loop.run_until_complete(arm())
        assert given.armed_timer_count == 3
        loop.close()
        assert given.armed_timer_count == 0  # as asyncio forgets its scheduled timers
        assert live_keys(loop) == keys  # and the callback table lets them go
        given.run(0.3)
        assert calls == []
    finally:
        loop.close()
        given.close()


def test_a_failed_record_does_not_stop_the_others() -> None:
    loop = ca.VirtualEventLoop()
    keys = live_keys(loop)
    try:
        calls: list[str] = []
        loop.call_later(1.0, calls.append, "a")
        bad = loop.call_later(2.0, calls.append, "b")
        assert isinstance(bad, Timer)
        loop.call_later(3.0, calls.append, "c")
        nan_date(loop, 1)  # C refuses it
        with pytest.raises(cadence.InvalidArgument, match="record 1"):
            loop.cadence.armed_timer_count  # noqa: B018 - the read flushes
        assert bad._cadence is None
        assert loop.cadence.armed_timer_count == 2
        settle(loop, 5.0)
        assert calls == ["a", "c"]
        del bad
        gc.collect()
        assert live_keys(loop) == keys
    finally:
        loop.close()


def test_a_lone_start_is_handed_over_alone_and_fails_alone() -> None:
    # One pending start takes the scalar call (no arrays): its failure, its cancel before the
    # flush and its fire behave as the batch's.
    loop = ca.VirtualEventLoop()
    keys = live_keys(loop)
    try:
        calls: list[str] = []
        bad = loop.call_later(1.0, calls.append, "bad")
        assert isinstance(bad, Timer)
        nan_date(loop, 0)  # C refuses it
        with pytest.raises(cadence.InvalidArgument, match=r"EventLoop\.call_at"):
            loop.cadence.armed_timer_count  # noqa: B018 - the read flushes
        assert bad._cadence is None
        assert loop.cadence.armed_timer_count == 0
        loop.call_later(2.0, calls.append, "dropped").cancel()
        assert loop.cadence.armed_timer_count == 0  # cancelled before the flush: never in C
        good = loop.call_later(3.0, calls.append, "good")
        assert loop.cadence.armed_timer_count == 1
        assert isinstance(good, Timer)
        assert good._cadence
        assert good._cadence > 0
        settle(loop, 5.0)
        assert calls == ["good"]
        del bad, good
        gc.collect()
        assert live_keys(loop) == keys
    finally:
        loop.close()


def test_another_thread_reading_while_the_loop_runs_flushes_nothing() -> None:
    # The loop's thread may be between the appends of one record: only it flushes while it runs.
    loop = ca.EventLoop()
    try:

        def on_the_loop() -> tuple[int, int]:
            loop.call_later(60, print)
            seen: list[int] = []
            reader = threading.Thread(target=lambda: seen.append(loop.cadence.armed_timer_count))
            reader.start()
            reader.join()  # the loop's thread waits here, between a start and its flush
            return seen[0], loop.cadence.armed_timer_count

        async def main() -> tuple[int, int]:
            return on_the_loop()

        assert loop.run_until_complete(main()) == (0, 1)
    finally:
        loop.close()


def test_one_cadence_loop_is_under_one_event_loop_at_a_time() -> None:
    with cadence.Loop() as given:
        first = ca.EventLoop(given)
        with pytest.raises(cadence.LoopBusy, match=r"another cadence\.asyncio event loop"):
            ca.EventLoop(given)
        first.call_later(60, print)
        assert given.armed_timer_count == 1  # the first one's hook is still in place
        first.close()
        second = ca.EventLoop(given)  # free again
        second.close()
