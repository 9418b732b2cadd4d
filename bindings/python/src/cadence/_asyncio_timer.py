"""asyncio's timer handle on a Cadence one-shot (for :mod:`cadence.asyncio`).

Every ``call_at`` makes one, so making, firing and cancelling it are the event loop's hot paths.
Its one-shot is C's ``cadence_loop_schedule_transient`` (made in a batch, once per loop turn:
``_asyncio_pending``): the handle ends with the timer (its fire or its cancel), so nothing gives
it up afterwards, and its callback is called with no ``Tick`` (``_table.UNTIMED``). The handle is
kept as a plain int, with no finalizer; a cancel is handed to C at the next flush, before anything
can fire the timer or read Cadence's state.
Outside debug mode they set and clear ``TimerHandle``'s attributes themselves instead of going
through ``Handle.__init__`` and ``cancel`` (a ``get_debug()`` call and two levels of ``super()``
each, about half of a bare ``TimerHandle``'s cost); ``test_asyncio_timer.py`` fails if CPython's
handles gain or lose an attribute, or set one differently. In debug mode asyncio's own code runs.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import Any

from . import _state

_copy_context = contextvars.copy_context


class Timer(asyncio.TimerHandle):
    """A ``TimerHandle`` whose Cadence one-shot puts it in the loop's ready queue when due."""

    __slots__ = ("_cadence", "_date", "_late")
    #: The one-shot's C handle (> 0) while it may still be called; -1 before its start is handed
    #: to C; -2 for an infinite wait (no one-shot: kept in the loop's ``_forever``); None (or 0,
    #: a start C refused) after its fire or cancel.
    _cadence: int | None
    #: The date and tolerance its start hands to C (``_asyncio_pending``), set with -1: kept on the
    #: timer, so that a pending start is one append (an interrupt cannot split it) of no object
    #: of its own (a tuple per start made the collector run often enough to cost 0.2 us a start).
    _date: float
    _late: float

    def __init__(
        self,
        when: float,
        callback: Callable[..., object],
        args: tuple[Any, ...],
        loop: Any,
        context: contextvars.Context | None = None,
    ) -> None:
        self._cadence = None
        if loop._debug:  # the source traceback and the rest, as asyncio makes them
            super().__init__(when, callback, args, loop, context)
            return
        self._context = _copy_context() if context is None else context
        self._loop, self._callback, self._args = loop, callback, args
        self._cancelled, self._repr, self._source_traceback = False, None, None
        self._when, self._scheduled = when, False  # never in asyncio's heap

    def __call__(self) -> None:
        # asyncio runs it with the other ready callbacks (a cancelled one is skipped there),
        # after this iteration's I/O callbacks (EventLoop._process_events); the ready queue is
        # BaseEventLoop's, a deque since 3.4, which EventLoop checks is there. The one-shot is
        # spent and its handle ended: a cancel after this has nothing to stop in Cadence
        # (asyncio.sleep cancels its handle once the sleep is over).
        self._cadence = None
        self._loop._ready.append(self)

    def _repr_info(self) -> list[str]:
        """The repr's parts as asyncio makes them, under asyncio's name (what logs show)."""
        info: list[str] = super()._repr_info()  # type: ignore[misc]  # asyncio's, not in typeshed
        info[0] = "TimerHandle"
        return info

    def cancel(self) -> None:
        """Cancels the timer; its Cadence one-shot is stopped at the next flush, before anything
        can fire it or read Cadence's state (``_asyncio_pending``); asyncio skips a cancelled
        handle that is already in its ready queue. Marked cancelled first, so that an interrupt
        anywhere in here leaves a handle that never runs and says so (at worst its one-shot fires
        into the ready queue, which skips it)."""
        if self._cancelled:
            return
        loop = self._loop
        if loop._debug:
            super().cancel()  # asyncio's, which marks it first too
        else:
            self._cancelled = True
        handle = self._cadence
        if handle:
            self._cadence = None
            if handle > 0:  # in C: stopped with the other cancels of this turn, its key stolen back
                loop._cancels.append(handle)
            elif handle == -1:  # not handed to C yet: its record is skipped
                loop._pending.dropped += 1
            else:  # -2: an infinite wait's, kept by the loop only for what waits on it
                loop._forever.pop(id(self), None)
        if not loop._debug:  # as Handle.cancel: drop the callback and its arguments
            self._callback = self._args = None  # type: ignore[assignment]  # typeshed: non-None


# Called only from C's callbacks (a batch of fires: ``_state``): a Ctrl-C at its first bytecode is
# recorded for the run, as in the rest of that glue, not raised where the timer would be lost.
_state.GLUE.add(Timer.__call__.__code__)
