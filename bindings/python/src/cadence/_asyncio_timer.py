"""asyncio's timer handle on a Cadence one-shot (for :mod:`cadence.asyncio`).

Every ``call_at`` makes one, so making, firing and cancelling it are the event loop's hot paths.
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

from .cancellable import ScheduledTimer
from .errors import BadHandle
from .tick import Tick

_copy_context = contextvars.copy_context


class Timer(asyncio.TimerHandle):
    """A ``TimerHandle`` whose Cadence one-shot puts it in the loop's ready queue when due."""

    __slots__ = ("_cadence",)
    _cadence: ScheduledTimer | None

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

    def __call__(self, _: Tick) -> None:
        # asyncio runs it with the other ready callbacks (a cancelled one is skipped there); the
        # ready queue is BaseEventLoop's, a deque since 3.4, which EventLoop checks is there. The
        # one-shot is spent: a cancel after this has nothing to stop in Cadence (asyncio.sleep
        # cancels its handle once the sleep is over).
        self._cadence = None
        self._loop._ready.append(self)

    def cancel(self) -> None:
        """Cancels the timer and its Cadence one-shot (freed at once)."""
        if self._cancelled:
            return
        if self._cadence is not None:
            try:  # noqa: SIM105 - not contextlib.suppress: an object per cancel on a hot path
                self._cadence.cancel()
            except BadHandle:  # the loop is closed: its timers went with it, as asyncio's do
                pass
        if self._loop._debug:
            super().cancel()
            return
        # As Handle.cancel: drop the callback and its arguments (typeshed types them non-None).
        self._cancelled = True
        self._callback = self._args = None  # type: ignore[assignment]
