"""asyncio support: values from Cadence callbacks, on any thread, into a running asyncio loop.

A :class:`Channel` is filled by callbacks (on the thread that runs the Cadence loop, usually
its own thread) and read by coroutines of one or more asyncio loops: a value is handed over
under a lock, and a waiting coroutine is woken with ``call_soon_threadsafe``. Nothing here
touches C; the publishers, countdowns and pollers build their asyncio faces on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

if TYPE_CHECKING:
    from ._registry import Ending, LoopState

__all__ = ["AsyncStream", "Channel"]

T = TypeVar("T")


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Channel(Generic[T]):
    """A thread-safe buffer of values for coroutines, that can be ended.

    ``put`` and ``end`` may be called from any thread, also where no asyncio loop runs; ``get``
    and ``wait_ended`` are awaited in an asyncio loop. With ``latest_only`` the buffer holds at
    most one value, the newest (for states such as a countdown's value, where a late reader wants
    the current value, not the history); otherwise it grows without limit until read, as Swift's
    ``AsyncStream`` does by default.
    """

    __slots__ = ("__weakref__", "_ended", "_items", "_latest_only", "_lock", "_waiters")

    def __init__(self, *, latest_only: bool = False) -> None:
        self._lock = threading.Lock()
        self._items: deque[T] = deque()
        self._latest_only = latest_only
        self._ended = False
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    @property
    def ended(self) -> bool:
        """Whether :meth:`end` was called (values may still be buffered)."""
        return self._ended

    def put(self, item: T) -> None:
        """Adds a value, unless the channel has ended; from any thread."""
        with self._lock:
            if self._ended:
                return
            if self._latest_only:
                self._items.clear()
            self._items.append(item)
            waiters, self._waiters = self._waiters, []
        self._notify(waiters)

    def end(self) -> None:
        """Ends the channel: readers get the buffered values, then the end. Idempotent."""
        with self._lock:
            if self._ended:
                return
            self._ended = True
            waiters, self._waiters = self._waiters, []
        self._notify(waiters)

    @staticmethod
    def _notify(waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]) -> None:
        for loop, future in waiters:
            # RuntimeError: that asyncio loop is closed, so nobody is waiting any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_wake, future)

    async def _wait(self, ready: Callable[[], bool]) -> None:
        """Waits until ``ready()``, checked under the lock, is true."""
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                if ready():
                    return
                future: asyncio.Future[None] = loop.create_future()
                self._waiters.append((loop, future))
            try:
                await future
            finally:
                with self._lock:
                    if (loop, future) in self._waiters:
                        self._waiters.remove((loop, future))

    async def get(self) -> T:
        """The next value.

        Raises:
            StopAsyncIteration: the channel has ended and holds no more values.
        """
        await self._wait(lambda: bool(self._items) or self._ended)
        with self._lock:
            if self._items:
                return self._items.popleft()
        raise StopAsyncIteration

    async def wait_ended(self) -> None:
        """Returns once the channel has ended, leaving its values to :meth:`get`."""
        await self._wait(lambda: self._ended)


def _close(channel: Channel[Any], stop: Callable[[], object]) -> None:
    channel.end()
    stop()


class AsyncStream(Generic[T]):
    """An asynchronous iterator over the values of a timer or a countdown, delivered into the
    running asyncio loop from whatever thread runs the Cadence loop (usually its own thread, see
    :meth:`Loop.threaded <cadence.Loop.threaded>`)::

        async for fire_date in timer:  # a TimerPublisher makes an AsyncStream
            ...

    The stream belongs to the task that first iterates it. It is closed, which cancels what
    feeds it (a timer subscription, a countdown), when that task ends (finished, failed or
    cancelled), when the iteration is left early (``break``, an exception: the stream is then
    dropped), on :meth:`aclose`, or at the end of an ``async with`` block. It ends by itself when
    its countdown finishes or is cancelled, or when its Cadence loop closes.

    Values wait in the stream until read (a countdown's stream keeps only the newest).
    """

    def __init__(self, channel: Channel[T], stop: Callable[[], object], description: str) -> None:
        self._channel = channel
        self._description = description
        self._task: asyncio.Task[Any] | None = None
        # Holds the channel and the stop function, never the stream: dropping the stream closes it.
        self._finalizer = weakref.finalize(self, _close, channel, stop)

    @property
    def closed(self) -> bool:
        """Whether the stream was closed (see the class description)."""
        return not self._finalizer.alive

    def close(self) -> None:
        """Closes the stream and cancels what feeds it; from any thread. Closing twice is
        harmless."""
        self._finalizer()

    async def aclose(self) -> None:
        """Closes the stream (as :meth:`close`)."""
        self._finalizer()

    def __aiter__(self) -> AsyncStream[T]:
        return self

    async def __anext__(self) -> T:
        """The next value, waiting for it in the running asyncio loop.

        Raises:
            StopAsyncIteration: the stream is closed or has ended.
            asyncio.CancelledError: the task was cancelled; the stream is closed.
        """
        if self._task is None:
            task = asyncio.current_task()
            if task is not None:
                self._task = task
                finalizer = self._finalizer
                task.add_done_callback(lambda _: finalizer())
        if not self._finalizer.alive:
            raise StopAsyncIteration
        try:
            return await self._channel.get()
        except asyncio.CancelledError:
            self._finalizer()
            raise

    async def __aenter__(self) -> AsyncStream[T]:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Closes the stream."""
        self._finalizer()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "ended" if self._channel.ended else "open"
        return f"<cadence.AsyncStream {state} {self._description}>"


def on_loop_close(state: LoopState, listener: Ending) -> None:
    """Ends ``listener`` when the loop of ``state`` closes (or at once if it is closed). It is
    held weakly."""
    state.listeners.add(listener)
    if state.closed:
        listener.end()
