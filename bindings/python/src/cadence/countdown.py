"""Countdowns: the whole seconds left to a deadline, computed from the loop's clock."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from . import _checks, _lib, _state
from ._async import AsyncStream, Channel, cancel_quietly, until_ended
from .cancellable import Owned

if TYPE_CHECKING:
    from .loop import Loop

__all__ = ["Countdown"]


class _Progress(_state.Ending):
    """A countdown's userdata: its callbacks, the last value, and the channels of the coroutines
    waiting on it (``done``, ended when the countdown is over, and one per stream). The
    :class:`Countdown` holds it; it holds no handle, so the countdown can be given up."""

    __slots__ = ("done", "finished", "lock", "on_finish", "on_value", "remaining", "streams")

    def __init__(self, state: _state.LoopState, on_value: Any, on_finish: Any) -> None:
        self.on_value, self.on_finish = on_value, on_finish
        self.remaining: int | None = None  # None until the first value
        self.finished = False
        self.lock = threading.Lock()  # orders the values and the end against new streams
        self.done: Channel[None] = Channel(state)
        self.streams: list[Channel[int]] = []

    def event(self, remaining: int, finished: bool) -> None:
        """One C call: a value, or the finish (then the countdown is over)."""
        if finished:
            self.finished = True
            try:
                self.on_finish()
            finally:
                self.end()
            return
        with self.lock:
            self.remaining = remaining
            for channel in self.streams:
                channel.put(remaining)
        self.on_value(remaining)

    def stream(self, state: _state.LoopState) -> Channel[int]:
        """A channel for a new stream: the current value, then every later one."""
        channel: Channel[int] = Channel(state, latest_only=True)
        with self.lock:
            if self.remaining is not None:
                channel.put(self.remaining)
            if self.done.ended:
                channel.end()
            else:
                self.streams.append(channel)
        return channel

    def end(self) -> None:
        """The countdown is over: lets go of its callbacks (and what they captured) and wakes
        the coroutines waiting on it. Idempotent; any thread."""
        self.on_value = self.on_finish = _ignore
        with self.lock:
            self.done.end()
            for channel in self.streams:
                channel.end()


def _ignore(*args: object) -> None:
    pass


def start(loop: Loop, deadline: float, tick: float, callback: Any, on_finish: Any) -> Countdown:
    """:meth:`Loop.countdown <cadence.Loop.countdown>`."""
    where, state = "Loop.countdown", loop._state
    end = _checks.seconds(deadline, where, "deadline")
    every = _checks.seconds(tick, where, "tick")
    on_value = _ignore if callback is None else _checks.function(callback, where)
    finish = _ignore if on_finish is None else _checks.function(on_finish, where, "on_finish")
    progress = _Progress(state, on_value, finish)
    times = (state.handle, end, every, state.on_countdown)
    handle = _state.register(_lib.lib.cadence_countdown_start, where, progress, *times)
    return Countdown(handle, loop, progress, f"to {end!r} every {every!r} s")


class Countdown(Owned):
    """A countdown started by :meth:`Loop.countdown <cadence.Loop.countdown>` (Swift's
    ``Scheduler.countdown(to:tick:)`` with ``sink(receiveCompletion:receiveValue:)``).

    Its callback receives the whole seconds left to the deadline, rounded up: on the loop's next
    pass, then whenever the value changes on a tick, then 0 at the deadline; then ``on_finish``
    is called once and the countdown is over (:attr:`finished`, and :attr:`cancelled` is True).

    :meth:`cancel` stops it early; :meth:`close` (or leaving a ``with`` block) cancels it and
    gives the handle up. Collected, it is cancelled, unless detached.

    asyncio: ``await countdown`` waits until it finishes, and ``async for remaining in
    countdown`` gives the current value, then every change, ending after the 0. The values come
    from the thread that runs the Cadence loop. Cancelling the task that awaits or iterates
    cancels the countdown.

    Threads: every method may be called from any thread and from callbacks.
    """

    __slots__ = ("_progress",)

    def __init__(self, handle: int, loop: Loop, progress: _Progress, description: str) -> None:
        super().__init__(handle, loop, description)
        self._progress = progress

    def __await__(self) -> Generator[Any, None, None]:
        """``await countdown``: waits in the running asyncio loop until the countdown finishes
        (after its last value and ``on_finish``); at once if it has. Cancelling the awaiting task
        cancels the countdown.

        Raises:
            RuntimeError: nothing runs the loop (no run, thread or asyncio attachment).
            asyncio.CancelledError: the countdown was cancelled or closed, or its loop closed,
                before it finished; or the awaiting task was cancelled.
        """
        yield from until_ended(self._progress.done, self).__await__()
        if not self._progress.finished:
            raise asyncio.CancelledError(f"{self!r} was cancelled")

    def __aiter__(self) -> AsyncStream[int]:
        """``async for remaining in countdown``: the current value (whole seconds left), then each
        new one, in the running asyncio loop; the iteration ends after the 0, or when the
        countdown is cancelled or its loop closes. A reader that falls behind gets the newest
        value. Leaving the iteration early, or cancelling the task, cancels the countdown.
        """
        channel = self._progress.stream(self._loop._state)
        return AsyncStream(channel, lambda: cancel_quietly(self), f"of {self!r}")

    @property
    def deadline(self) -> float:
        """When the countdown reaches 0: a date on the loop's clock, in seconds (C's
        ``cadence_countdown_deadline``); readable once finished or cancelled too.

        Raises:
            BadHandle: the countdown or its loop is closed.
        """
        return self._get(_lib.lib.cadence_countdown_deadline, "deadline")

    @property
    def tick(self) -> float:
        """Seconds between recomputations of the value (C's ``cadence_countdown_tick``).

        Raises:
            BadHandle: the countdown or its loop is closed.
        """
        return self._get(_lib.lib.cadence_countdown_tick, "tick")

    @property
    def remaining(self) -> int:
        """The last value delivered: whole seconds left, rounded up (0 before the first value,
        which comes on the loop's next pass, and at the end). Readable after :meth:`close`."""
        return self._progress.remaining or 0

    @property
    def finished(self) -> bool:
        """Whether the countdown reached its deadline and called ``on_finish`` (or is calling
        it). A cancelled countdown never finishes. Readable after :meth:`close` too."""
        return self._progress.finished

    def _status(self) -> str:
        status = "finished" if self.finished else super()._status()
        return f"{self.remaining} s left" if status == "active" else status
