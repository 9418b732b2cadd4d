"""Countdowns: the whole seconds left to a deadline, computed from the loop's clock."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Callable

from . import _registry
from ._async import AsyncStream, Channel
from .cancellable import Cancellable, _CancelledOnClose, _release
from .errors import BadHandle, CadenceError

if TYPE_CHECKING:
    from ._registry import LoopState
    from .loop import Loop

__all__ = ["Countdown"]


class Progress:
    """What a countdown has delivered, shared by its entry in the callback table and its handle
    (which may be collected first), and the asyncio channels waiting on it."""

    __slots__ = (
        "__weakref__",
        "done",
        "ended",
        "finished",
        "handle_id",
        "lock",
        "orphaned",
        "remaining",
        "state",
        "streams",
    )

    def __init__(self, state: LoopState) -> None:
        self.state = state
        self.remaining: int | None = None
        self.finished = False
        self.handle_id = 0
        #: Set when the handle was collected before the countdown finished: the finish releases.
        self.orphaned = False
        self.lock = threading.Lock()
        #: Ended when the countdown is over (finished, cancelled, or its loop closed).
        self.done: Channel[None] = Channel(state)
        self.ended = False
        #: The channels of the asyncio streams iterating the values.
        self.streams: list[Channel[int]] = []

    def deliver(self, remaining: int) -> None:
        """Records a value and passes it to the streams."""
        with self.lock:
            self.remaining = remaining
            streams = list(self.streams)
        for channel in streams:
            channel.put(remaining)

    def stream(self) -> Channel[int]:
        """A channel for a new stream: the current value, then every later one."""
        channel: Channel[int] = Channel(self.state, latest_only=True)
        with self.lock:
            if self.remaining is not None:
                channel.put(self.remaining)
            if self.ended:
                channel.end()
            else:
                self.streams.append(channel)
        return channel

    def end(self) -> None:
        """The countdown is over: wakes the coroutines waiting on it. Idempotent; any thread."""
        with self.lock:
            self.ended = True
            streams, self.streams = self.streams, []
        self.done.end()
        for channel in streams:
            channel.end()


def _deliver(
    progress: Progress,
    on_value: Callable[[int], object] | None,
    on_finish: Callable[[], object] | None,
    event: tuple[int, bool, float],
) -> None:
    """The table entry of a countdown: forwards one C event to the user's callbacks."""
    remaining, finished, _date = event
    if not finished:
        progress.deliver(remaining)
        if on_value is not None:
            on_value(remaining)
        return
    progress.finished = True
    try:
        if on_finish is not None:
            on_finish()
    finally:
        progress.end()
        with progress.lock:
            orphaned = progress.orphaned
        if orphaned:
            _release(progress.state, progress.handle_id)


def make_entry(
    progress: Progress,
    on_value: Callable[[int], object] | None,
    on_finish: Callable[[], object] | None,
) -> Callable[[Any], object]:
    """The callable to register for a countdown."""
    return lambda event: _deliver(progress, on_value, on_finish, event)


def _cancel_quietly(cancellable: Cancellable) -> None:
    """Cancels what asyncio code was waiting on, unless it is closed or over."""
    if not cancellable.closed:
        with contextlib.suppress(BadHandle):
            cancellable.cancel()


class Countdown(_CancelledOnClose):
    """A countdown started by :meth:`Loop.countdown <cadence.Loop.countdown>` (Swift's
    ``Scheduler.countdown(to:tick:)`` with ``sink(receiveCompletion:receiveValue:)``).

    Its callback receives the whole seconds left to the deadline, rounded up: at once, then
    whenever the value changes on a tick, then 0 at the deadline; then ``on_finish`` is called
    once and the countdown is over (:attr:`finished`, and :attr:`cancelled` is True too).

    :meth:`cancel` stops it early; :meth:`close` (or leaving a ``with`` block) cancels it and
    releases the handle. Dropping the object does *not* cancel it: the binding keeps its callbacks
    until it finishes, is cancelled, or its loop closes.

    asyncio: ``await countdown`` waits until it finishes, and ``async for remaining in
    countdown`` gives the current value, then every change, ending after the 0 (see
    :meth:`__await__` and :meth:`__aiter__`). The values come from the thread that runs the
    Cadence loop: the asyncio thread itself once the loop is attached
    (:meth:`Loop.attach_asyncio <cadence.Loop.attach_asyncio>`), or the loop's own thread.
    Cancelling the
    task that awaits or iterates cancels the countdown.

    Threads: every method may be called from any thread and from callbacks.
    """

    def __init__(
        self,
        loop: Loop,
        state: LoopState,
        handle: int,
        key: int,
        progress: Progress,
        deadline: float,
        tick: float,
    ) -> None:
        self._progress = progress
        self._deadline = deadline
        self._tick = tick
        progress.handle_id = handle
        super().__init__(loop, state, handle, key, f"to {deadline!r} every {tick!r} s")

    def _ended(self) -> None:
        """After a cancel or close: coroutines awaiting the countdown get
        :class:`asyncio.CancelledError` (unless it finished) and its streams end."""
        self._progress.end()

    def __await__(self) -> Generator[Any, None, None]:
        """``await countdown``: waits in the running asyncio loop until the countdown finishes
        (after its last value and ``on_finish``); at once if it has.

        Cancelling the awaiting task cancels the countdown.

        Raises:
            RuntimeError: nothing runs the loop (no run, thread or asyncio attachment), so the
                countdown would never finish.
            asyncio.CancelledError: the countdown was cancelled or closed, or its loop closed,
                before it finished; or the awaiting task was cancelled.
        """
        return self._wait().__await__()

    async def _wait(self) -> None:
        try:
            await self._progress.done.wait_ended()
        except asyncio.CancelledError:
            _cancel_quietly(self)
            raise
        if not self._progress.finished:
            raise asyncio.CancelledError(f"{self!r} was cancelled")

    def __aiter__(self) -> AsyncStream[int]:
        """``async for remaining in countdown``: the current value (whole seconds left), then each
        new one, in the running asyncio loop; the iteration ends after the 0, or when the
        countdown is cancelled or its loop closes.

        A reader that falls behind gets the newest value, never a stale one (the stream keeps
        one). Leaving the iteration early, or cancelling the task, cancels the countdown.
        """
        return AsyncStream(
            self._progress.stream(), functools.partial(_cancel_quietly, self), f"of {self!r}"
        )

    def _release_handle(self, handle: int) -> None:
        # Collected while running: keep going (releasing would cancel) and let the finish release.
        progress = self._progress
        assert self._key is not None
        with progress.lock:
            if _registry.is_registered(self._state, self._key):
                progress.orphaned = True
                return
        _release(self._state, handle)

    @property
    def deadline(self) -> float:
        """When the countdown reaches 0: a date on the loop's clock, in seconds (as
        :meth:`Loop.now <cadence.Loop.now>`)."""
        return self._deadline

    @property
    def tick(self) -> float:
        """Seconds between recomputations of the value."""
        return self._tick

    @property
    def remaining(self) -> int:
        """The last value passed to the callback: whole seconds left, rounded up (0 at the end,
        and before the first value, which comes on the loop's next pass).

        Readable after :meth:`close` too.
        """
        value = self._progress.remaining
        return 0 if value is None else value

    @property
    def finished(self) -> bool:
        """Whether the countdown reached its deadline and called ``on_finish`` (or is calling
        it). A cancelled countdown never finishes. Readable after :meth:`close` too."""
        return self._progress.finished

    def _status(self) -> str:
        closed = self._state_word()
        if closed:
            return closed
        if self.finished:
            return "finished"
        try:
            return "cancelled" if self.cancelled else f"{self.remaining} s left"
        except CadenceError:
            return "invalid"
