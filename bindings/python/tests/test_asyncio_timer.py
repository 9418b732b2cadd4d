"""The timer handle of cadence.asyncio sets asyncio's attributes itself outside debug mode: these
tests fail if CPython's ``Handle``/``TimerHandle`` gain, lose or set an attribute differently."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest

import cadence.asyncio as ca
from cadence._asyncio_timer import Timer


def slots(kind: type) -> list[str]:
    """Every attribute slot of ``kind`` and its bases, but ``__weakref__``."""
    names = []
    for base in kind.__mro__:
        declared = base.__dict__.get("__slots__", ())
        names += [declared] if isinstance(declared, str) else list(declared)
    return sorted(set(names) - {"__weakref__"})


def state(handle: asyncio.TimerHandle) -> dict[str, Any]:
    """The value of each of asyncio's slots (the Context by identity)."""
    return {name: getattr(handle, name) for name in slots(asyncio.TimerHandle)}


def compare(made: Timer, reference: asyncio.TimerHandle) -> None:
    assert slots(Timer) == sorted([*slots(asyncio.TimerHandle), "_cadence", "_date", "_late"])
    assert state(made) == state(reference)


@pytest.mark.parametrize("debug", [False, True])
def test_a_timer_handle_is_set_as_asyncios_own_and_cancelled_as_it(debug: bool) -> None:
    loop = ca.EventLoop()
    try:
        loop.set_debug(debug)
        context = contextvars.copy_context()
        made = Timer(12.5, print, ("x",), loop, context)
        reference = asyncio.TimerHandle(12.5, print, ("x",), loop, context)
        if debug:  # asyncio's own code ran: a traceback of where it was made, as the reference's
            assert made._source_traceback
            assert reference._source_traceback
            made._source_traceback = reference._source_traceback = None
        compare(made, reference)
        made.cancel()
        reference.cancel()
        if debug:
            assert made._repr is not None
            assert reference._repr is not None
            made._repr = reference._repr = None
        compare(made, reference)
        assert (made.when(), made.cancelled(), made._cadence) == (12.5, True, None)
    finally:
        loop.close()


def test_a_timer_without_context_runs_in_a_copy_of_the_current_one() -> None:
    loop = ca.EventLoop()
    try:
        made = Timer(1.0, print, (), loop)
        assert isinstance(made._context, contextvars.Context)
        assert made._context is not contextvars.copy_context()
    finally:
        loop.close()


def test_a_fired_timer_has_no_cadence_timer_left_to_cancel() -> None:
    """asyncio.sleep cancels its handle after the sleep: that cancel must cost nothing."""

    async def main() -> tuple[bool, bool, int, bool]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, ca.EventLoop)
        fired = loop.create_future()
        handle = loop.call_later(0.001, fired.set_result, None)
        armed = getattr(handle, "_cadence", None) is not None
        await fired
        spent = getattr(handle, "_cadence", "missing") is None
        handle.cancel()
        return armed, spent, loop.cadence.armed_timer_count, handle.cancelled()

    loop = ca.EventLoop()
    try:
        assert loop.run_until_complete(main()) == (True, True, 0, True)
    finally:
        loop.close()


@pytest.mark.parametrize("factory", [asyncio.new_event_loop, ca.EventLoop, ca.VirtualEventLoop])
def test_in_debug_mode_a_timer_says_where_it_was_made_as_asyncios_does(factory: Any) -> None:
    loop = factory()
    try:
        loop.set_debug(True)
        later = loop.call_later(10, print)  # the line each traceback ends at
        at = loop.call_at(loop.time() + 10, print)  # and this one
        assert [later._source_traceback[-1].line, at._source_traceback[-1].line] == [
            "later = loop.call_later(10, print)  # the line each traceback ends at",
            "at = loop.call_at(loop.time() + 10, print)  # and this one",
        ]
        assert repr(later).startswith("<TimerHandle when=")
        soon = loop.call_soon(print)  # asyncio's handle
        assert soon._source_traceback[-1].line == "soon = loop.call_soon(print)  # asyncio's handle"
        later.cancel()
        at.cancel()
    finally:
        loop.close()
