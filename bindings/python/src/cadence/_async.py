"""asyncio support: a Cadence loop attached to an asyncio loop, and values from Cadence
callbacks into coroutines.

An :class:`Attachment` makes the asyncio loop drive the Cadence loop: the loop's descriptor is
watched with ``add_reader`` (as pyzmq does) and each time it is readable one pass fires what is
due, on the asyncio thread. A :class:`Channel` is filled by callbacks (on the asyncio thread
when attached, else on the thread that runs the Cadence loop) and read by coroutines: a value
is handed over under a lock, and a waiting coroutine is woken with ``call_soon_threadsafe``. A
channel that is a subscription's userdata ends when the subscription does (C's release).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import threading
import weakref
from collections import deque
from typing import Any, Callable, Generic, TypeVar

from . import _lib
from ._state import Ending, LoopState
from .errors import RUNNING_OR_THREAD, CadenceError, LoopBusy, check

__all__ = ["AsyncStream", "Attachment", "Channel"]

T = TypeVar("T")

_NOTHING_RUNS = (
    "cadence: nothing runs the loop, so waiting on it would wait for ever: attach it to asyncio "
    "first (loop.attach_asyncio()), give it a thread (loop.start_thread()) or run it on another"
)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Channel(Ending, Generic[T]):
    """A thread-safe buffer of values for coroutines, that can be ended.

    ``put``, ``end`` and calling it (``put(convert(value))``, as a subscription's callback) may
    come from any thread; ``get`` and ``wait_ended`` are awaited in an asyncio loop. With
    ``latest_only`` it holds the newest value only (a countdown's); otherwise every value until
    read, as Swift's ``AsyncStream`` by default.
    """

    def __init__(self, state: LoopState, convert: Any = None, *, latest_only: bool = False) -> None:
        self._state, self._convert, self._latest = state, convert, latest_only
        self._lock = threading.Lock()
        self._items: deque[T] = deque()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        #: Whether :meth:`end` was called (values may still be buffered).
        self.ended = False

    def __call__(self, value: Any) -> None:
        """Puts ``convert(value)``: the channel as a subscription's callback."""
        self.put(self._convert(value) if self._convert else value)

    def put(self, item: T) -> None:
        """Adds a value, unless the channel has ended; from any thread."""
        with self._lock:
            if self.ended:
                return
            if self._latest:
                self._items.clear()
            self._items.append(item)
            waiters, self._waiters = self._waiters, []
        self._notify(waiters)

    def end(self) -> None:
        """Ends the channel: readers get the buffered values, then the end. Idempotent."""
        with self._lock:
            self.ended = True
            waiters, self._waiters = self._waiters, []
        self._notify(waiters)

    @staticmethod
    def _notify(waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]) -> None:
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that asyncio loop is closed
                loop.call_soon_threadsafe(_wake, future)

    async def _wait(self, ready: Callable[[], bool]) -> None:
        """Waits until ``ready()`` (read under the lock); RuntimeError if it is not and nothing
        runs the Cadence loop, so nothing ever would make it true."""
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                if ready():
                    return
                state = self._state
                if not (state.running or state.thread or not state.handle):
                    raise RuntimeError(_NOTHING_RUNS)
                future: asyncio.Future[None] = loop.create_future()
                self._waiters.append((loop, future))
            try:
                await future
            finally:
                with self._lock, contextlib.suppress(ValueError):
                    self._waiters.remove((loop, future))

    async def get(self) -> T:
        """The next value; StopAsyncIteration once ended and empty."""
        await self._wait(lambda: bool(self._items) or self.ended)
        with self._lock:
            if self._items:
                return self._items.popleft()
        raise StopAsyncIteration

    async def wait_ended(self) -> None:
        """Returns once the channel has ended, leaving its values to :meth:`get`."""
        await self._wait(lambda: self.ended)


def cancel_quietly(cancellable: Any) -> None:
    """Cancels ``cancellable`` (a countdown, a poller), unless it or its loop is closed."""
    with contextlib.suppress(CadenceError):
        cancellable.cancel()


async def until_ended(channel: Channel[Any], cancellable: Any) -> None:
    """Waits until ``channel`` ends; cancelling the waiting task cancels ``cancellable``."""
    try:
        await channel.wait_ended()
    except asyncio.CancelledError:
        cancel_quietly(cancellable)
        raise


def _close(channel: Channel[Any], stop: Callable[[], object]) -> None:
    channel.end()
    stop()


class AsyncStream(Generic[T]):
    """An asynchronous iterator over the values of a timer or a countdown, delivered into the
    running asyncio loop from whatever runs the Cadence loop: the asyncio loop itself once
    attached (:meth:`Loop.attach_asyncio <cadence.Loop.attach_asyncio>`), or another thread
    (:meth:`Loop.threaded <cadence.Loop.threaded>`); waiting on a loop that nothing runs raises
    RuntimeError instead of waiting for ever::

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
        self._channel, self._description = channel, description
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
        if self._task is None and (task := asyncio.current_task()) is not None:
            self._task = task
            task.add_done_callback(self._finalizer)  # finalize() takes (and ignores) the task
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


class Attachment:
    """A Cadence loop attached to a running asyncio loop (made by
    :meth:`Loop.attach_asyncio <cadence.Loop.attach_asyncio>`): the asyncio loop watches the
    Cadence loop's descriptor and makes one pass each time it is readable, so every callback,
    stream, countdown and poller of the loop runs on the asyncio thread, with no other thread.

    :meth:`detach` (or the end of a ``with`` block) stops it; the Cadence loop is kept alive until
    then. Call it on the asyncio thread, or once the asyncio loop has stopped.
    """

    def __init__(self, loop: object, state: LoopState, mode: bytes) -> None:
        """Claims the loop for the asyncio thread, watches its descriptor and makes a first
        pass (which arms it for ``mode``)."""
        self._aloop = asyncio.get_running_loop()
        self._fd = descriptor(state, "Loop.attach_asyncio")
        if not state.claim():
            raise LoopBusy(context="Loop.attach_asyncio", detail=RUNNING_OR_THREAD)
        self._loop: object | None = loop  # held until detached: the reader holds this
        self._state, self._mode = state, mode
        try:
            self._aloop.add_reader(self._fd, self._pass)
            self._pass()
        except BaseException:
            self.detach()
            raise

    @property
    def attached(self) -> bool:
        """Whether the Cadence loop is still attached (not yet :meth:`detach`-ed)."""
        return self._loop is not None

    def detach(self) -> None:
        """Stops watching the descriptor; the loop can then be run, threaded, attached again or
        closed. Detaching twice is harmless."""
        if self._loop is not None:
            self._loop = None
            with contextlib.suppress(RuntimeError):  # a closed asyncio loop: nothing to remove
                self._aloop.remove_reader(self._fd)
            self._state.release()

    def _pass(self) -> None:
        """One pass, from the asyncio loop's reader. A callback's exception goes to the asyncio
        loop's exception handler, except KeyboardInterrupt and SystemExit, which are raised."""
        if self._loop is None:
            return
        state = self._state
        code = _lib.lib.cadence_loop_run_pass(state.handle, self._mode)
        errors, state.errors = state.errors, []
        for error in errors:
            if not isinstance(error, Exception):
                raise error
            self._aloop.call_exception_handler(
                {"message": f"exception in a callback of {self._loop!r}", "exception": error}
            )
        check(code, "Loop.attach_asyncio")

    def __enter__(self) -> Attachment:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Detaches."""
        self.detach()


def descriptor(state: LoopState, where: str) -> int:
    """The loop's descriptor (``cadence_loop_fd``); errors name ``where``."""
    out = ctypes.c_int()
    check(_lib.lib.cadence_loop_fd(state.handle, out), where)
    return out.value
