"""asyncio support: a Cadence loop attached to an asyncio loop, and values from Cadence
callbacks into coroutines.

An :class:`Attachment` makes the asyncio loop drive the Cadence loop: the loop's descriptor is
watched with ``add_reader`` (as pyzmq does) and each time it is readable one pass fires what is
due, on the asyncio thread. A :class:`Channel` is filled by callbacks (on the asyncio thread
when attached, else on the thread that runs the Cadence loop) and read by coroutines: a value
is handed over under a lock, and the readers waiting in each asyncio loop are woken through
that loop's ``call_soon_threadsafe``. A channel that is a subscription's userdata ends when the
subscription does (C's release).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import threading
import weakref
from collections import deque
from collections.abc import AsyncIterator
from typing import Any, Callable, Generic, TypeVar

from . import _cancels, _lib
from ._state import Ending, LoopState, hook
from .errors import RUNNING_OR_THREAD, CadenceError, LoopBusy, check

__all__ = ["AsyncStream", "Attachment", "Channel", "deliver_errors", "descriptor"]

T = TypeVar("T")

# Why waiting would wait for ever, for a real loop and (at index 1) for a virtual one.
_NOTHING_RUNS = (
    "cadence: nothing runs the loop, so waiting on it would wait for ever: attach it to asyncio "
    "first (loop.attach_asyncio()), give it a thread (loop.start_thread()) or run it on another",
    "cadence: a virtual loop moves only when told, and nothing runs this one: run async code on "
    "cadence.asyncio.VirtualEventLoop (its loop.cadence is such a loop, moved as the code awaits), "
    "or run this one first (loop.run(seconds)) and read only what fired then",
)


class Channel(Ending, Generic[T]):
    """A thread-safe buffer of values for coroutines, that can be ended.

    ``put``, ``end`` and calling it (``put(convert(value))``, as a subscription's callback) may
    come from any thread; ``get`` and ``wait_ended`` are awaited in an asyncio loop, or in
    several. With ``latest_only`` it holds the newest value only (a countdown's); otherwise every
    value until read, as Swift's ``AsyncStream`` by default.
    """

    def __init__(self, state: LoopState, convert: Any = None, *, latest_only: bool = False) -> None:
        self._state, self._convert = state, convert
        self._lock = threading.Lock()
        self._items: deque[T] = deque(maxlen=1 if latest_only else None)
        # One event per asyncio loop that has readers waiting; set (and dropped) on each change.
        self._events: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}
        #: Whether :meth:`end` was called (values may still be buffered).
        self.ended = False

    def __call__(self, value: Any) -> None:
        """Puts ``convert(value)``: the channel as a subscription's callback."""
        self.put(self._convert(value) if self._convert else value)

    def put(self, item: T) -> None:
        """Adds a value, unless the channel has ended; from any thread."""
        with self._lock:
            if not self.ended:
                self._items.append(item)
                self._wake_readers()

    def end(self) -> None:
        """Ends the channel: readers get the buffered values, then the end. Idempotent."""
        with self._lock:
            self.ended = True
            self._wake_readers()

    def _wake_readers(self) -> None:
        """Wakes every waiting reader: the event of each asyncio loop with readers waiting is set
        in that loop (``call_soon_threadsafe``), then dropped. Called under the lock."""
        for loop, event in self._events.items():
            with contextlib.suppress(RuntimeError):  # that asyncio loop is closed
                loop.call_soon_threadsafe(event.set)
        self._events.clear()

    async def _wait(self, ready: Callable[[], bool]) -> None:
        """Waits until ``ready()`` (read under the lock); RuntimeError if it is not and nothing
        runs the Cadence loop (a virtual loop runs only when told), so nothing ever would make it
        true."""
        while True:
            with self._lock:
                if ready():
                    return
                if self._state.handle and not (self._state.running or self._state.thread):
                    raise RuntimeError(_NOTHING_RUNS[self._state.virtual])
                event = self._events.setdefault(asyncio.get_running_loop(), asyncio.Event())
            await event.wait()

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


async def sleep(state: LoopState, schedule: Callable[..., Any], delay: float, late: float) -> None:
    """Waits ``delay`` seconds (>= 0) on a Cadence one-shot of ``schedule`` with tolerance
    ``late``, resumed in the running asyncio loop from whatever runs the Cadence loop; the
    one-shot is cancelled with the waiting task."""
    with state.lock:
        if state.handle and not (state.running or state.thread):
            raise RuntimeError(_NOTHING_RUNS[state.virtual])
    aloop, here = asyncio.get_running_loop(), threading.get_ident()
    woken = aloop.create_future()

    def wake(_: object = None) -> None:
        if threading.get_ident() != here:
            aloop.call_soon_threadsafe(wake)
        elif not woken.done():
            woken.set_result(None)

    timer = schedule(delay, wake, tolerance=late)
    try:
        await woken
    finally:
        timer.close()  # a cancelled task's one-shot is freed at once


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


class AsyncStream(AsyncIterator[T], contextlib.AbstractAsyncContextManager["AsyncStream[T]"]):
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
    its countdown finishes or is cancelled, or when its Cadence loop closes; not when a
    connectable publisher's connection is cancelled (as in Combine, subscribers then get silence,
    no completion): leave the loop (``break``), close the stream, or iterate an autoconnect
    publisher, whose last subscriber leaving stops the timer.

    Values wait in the stream until read (a countdown's stream keeps only the newest).
    """

    def __init__(self, channel: Channel[T], stop: Callable[[], object], description: str) -> None:
        self._channel, self._description = channel, description
        self._owned = False  # whether a task iterates it (and closes it when done)
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

    async def __anext__(self) -> T:
        """The next value, waiting for it in the running asyncio loop.

        Raises:
            StopAsyncIteration: the stream is closed or has ended.
            asyncio.CancelledError: the task was cancelled; the stream is closed.
        """
        if not self._owned and (task := asyncio.current_task()) is not None:
            self._owned = True
            task.add_done_callback(self._finalizer)  # finalize() takes (and ignores) the task
        if not self._finalizer.alive:
            raise StopAsyncIteration
        try:
            return await self._channel.get()
        except asyncio.CancelledError:
            self._finalizer()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        """Closes the stream."""
        self._finalizer()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "ended" if self._channel.ended else "open"
        return f"<cadence.AsyncStream {state} {self._description}>"


class Attachment(contextlib.AbstractContextManager["Attachment"]):
    """A Cadence loop attached to a running asyncio loop (made by
    :meth:`Loop.attach_asyncio <cadence.Loop.attach_asyncio>`): the asyncio loop watches the
    Cadence loop's descriptor and makes one pass each time it is readable, so every callback,
    stream, countdown and poller of the loop runs on the asyncio thread, with no other thread.

    :meth:`detach` (or the end of a ``with`` block) stops it; the Cadence loop is kept alive until
    then. Call it on the asyncio thread, or once the asyncio loop has stopped.
    """

    def __init__(self, loop: object, state: LoopState, mode: bytes) -> None:
        """Claims the loop for the asyncio thread, watches its descriptor and makes a first
        pass (which arms it for ``mode``); RuntimeError, chaining asyncio's, outside asyncio."""
        try:
            self._aloop = asyncio.get_running_loop()
        except RuntimeError as error:
            place = "from a coroutine (or callback) running on an asyncio loop"
            raise RuntimeError(f"Loop.attach_asyncio must be called {place}") from error
        self._fd = descriptor(state, "Loop.attach_asyncio")
        if not state.claim():
            raise LoopBusy(context="Loop.attach_asyncio", detail=RUNNING_OR_THREAD)
        # The loop is held until detached (None then), as the asyncio reader holds this.
        self._loop, self._state, self._mode = loop, state, mode
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
        _cancels.flush()
        code = _lib.lib.cadence_loop_run_pass(self._state.handle, self._mode)
        deliver_errors(self._state, self._aloop, self._loop)
        check(code, "Loop.attach_asyncio")

    def __exit__(self, *exc_info: object) -> None:
        """Detaches."""
        self.detach()


def deliver_errors(state: LoopState, aloop: asyncio.AbstractEventLoop, owner: object) -> None:
    """Hands the exceptions that callbacks of ``owner`` raised during a pass run by asyncio to
    ``aloop``'s exception handler, as asyncio does for its own callbacks; then raises the first
    KeyboardInterrupt or SystemExit (any other goes to :func:`threading.excepthook`, as
    ``LoopState.raise_errors`` does), so that none of them is lost."""
    errors, state.errors = state.errors, []
    raised: BaseException | None = None
    for error in errors:
        if isinstance(error, Exception):
            message = f"exception in a callback of {owner!r}"
            aloop.call_exception_handler({"message": message, "exception": error})
        elif raised is None:
            raised = error
        else:
            hook(error)
    if raised is not None:
        try:
            raise raised
        finally:
            del raised, errors


def descriptor(state: LoopState, where: str) -> int:
    """The loop's descriptor (``cadence_loop_fd``); errors name ``where``."""
    check(_lib.lib.cadence_loop_fd(state.handle, out := ctypes.c_int()), where, state)
    return out.value
