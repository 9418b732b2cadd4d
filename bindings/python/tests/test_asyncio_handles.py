"""The Cadence one-shot under each asyncio timer of cadence.asyncio: a transient handle
(``cadence_loop_schedule_transient``) that C ends with the timer, fired or cancelled, so nothing
gives it up afterwards and nothing leaks; its callback gets no ``Tick``. A late cancel (after the
fire, or after the loop closed) meets an ended handle and changes nothing."""

from __future__ import annotations

import asyncio
import ctypes
import gc

import cadence.asyncio as ca
from cadence import _lib, _table
from cadence._asyncio_timer import Timer
from cadence.errors import EBADF

lib = _lib.lib


def live_keys(loop: asyncio.AbstractEventLoop) -> int:
    """The keys held for C: the callback table's and the event loop's table of armed timers."""
    assert isinstance(loop, ca.EventLoop)
    return _table.held() + loop._armed.held()


def handle_of(timer: asyncio.TimerHandle) -> int | None:
    """The C handle of an event loop's timer while its one-shot may still be called."""
    assert isinstance(timer, Timer)
    return timer._cadence


def ended(handle: int) -> bool:
    """Whether C reads the handle as ended: stale, never naming another timer."""
    return bool(lib.cadence_is_cancelled(handle, ctypes.c_int()) == EBADF)


def no_handle_held(loop: ca.EventLoop) -> bool:
    """Ageing the slots is refused while a timer is armed or a C handle of one is held."""
    return bool(lib.cadence_loop_age_timer_slots(loop.cadence._state.handle, 1) == 0)


def test_fired_and_cancelled_timers_leave_no_handle_and_no_key() -> None:
    loop = ca.EventLoop()
    keys = live_keys(loop)
    try:
        calls: list[int] = []
        fired = [loop.call_later(0.001 * k, calls.append, k) for k in range(50)]
        cancelled = [loop.call_later(60.0, calls.append, -1) for _ in range(50)]
        assert loop.cadence.armed_timer_count == 100  # a read hands the pending starts to C
        handles = [handle_of(timer) for timer in fired + cancelled]
        assert all(isinstance(h, int) and h > 0 for h in handles)
        for timer in cancelled:
            timer.cancel()
            assert handle_of(timer) is None
            assert timer.cancelled()
        loop.run_until_complete(asyncio.sleep(0.1))
        assert calls == list(range(50))
        assert all(handle_of(t) is None for t in fired)
        assert all(ended(h) for h in handles if h is not None)
        for timer in fired + cancelled:  # late cancels: nothing to stop, nothing raised
            timer.cancel()
        assert loop.cadence.armed_timer_count == 0
        del fired, cancelled
        gc.collect()
        assert live_keys(loop) == keys
        assert no_handle_held(loop)
    finally:
        loop.close()


def test_a_dropped_timer_still_fires() -> None:
    loop = ca.EventLoop()
    try:
        calls: list[str] = []
        loop.call_later(0.001, calls.append, "dropped")  # asyncio's loop keeps it too
        gc.collect()
        loop.run_until_complete(asyncio.sleep(0.05))
        assert calls == ["dropped"]
        assert no_handle_held(loop)
    finally:
        loop.close()


def test_a_cancel_after_the_loop_closed_is_quiet() -> None:
    loop = ca.EventLoop()
    keys = live_keys(loop)
    timer = loop.call_later(60.0, print)
    assert loop.cadence.armed_timer_count == 1  # a read hands the pending start to C
    handle = handle_of(timer)
    loop.close()  # ends the one-shot, and its handle, with the Cadence loop
    assert handle is not None
    assert ended(handle)
    timer.cancel()
    assert timer.cancelled()
    gc.collect()
    assert live_keys(loop) == keys


def test_a_timer_cancelled_from_an_earlier_timer_of_the_same_pass() -> None:
    # The two one-shots are due in one pass and reach Python in one batch, which puts both in the
    # ready queue: the first one's callback cancels the second there, so it never runs.
    loop = ca.EventLoop()
    keys = live_keys(loop)
    try:
        calls: list[str] = []
        later: list[asyncio.TimerHandle] = []

        def first() -> None:
            calls.append("first")
            later[0].cancel()

        loop.call_later(0.01, first)
        later.append(loop.call_later(0.01, calls.append, "second"))
        loop.run_until_complete(asyncio.sleep(0.05))
        assert calls == ["first"]
        assert loop.cadence.armed_timer_count == 0
        gc.collect()
        assert live_keys(loop) == keys
        assert no_handle_held(loop)
    finally:
        loop.close()
