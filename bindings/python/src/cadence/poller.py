"""Pollers: an operation every interval, never overlapping, only while active."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import functools
import inspect
import numbers
import threading
from collections.abc import Awaitable, Generator
from typing import TYPE_CHECKING, Any, Callable

from . import _args, _lib
from ._async import Channel
from .cancellable import _CancelledOnClose
from .errors import EALREADY, EBADF, BadHandle, CadenceError, InvalidArgument, check

if TYPE_CHECKING:
    from ._registry import LoopState
    from .loop import Loop

__all__ = ["Poll", "Poller"]

_UINT64_MAX = 2**64 - 1


def poll_number(value: object, where: str) -> int:
    """``value`` as a poll number for C: TypeError unless an int (not a bool), InvalidArgument
    outside 0 to 2**64 - 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}: number must be an int, not {type(value).__name__}")
    number = int(value)
    if not 0 <= number <= _UINT64_MAX:
        raise InvalidArgument(
            context=where, detail=f"number must be 0 to 2**64 - 1, got {number!r}"
        )
    return number


class Poll:
    """One poll of a :class:`Poller`, as passed to its operation.

    Attributes:
        number: 1 for the poller's first poll, then 2, 3, ... (polls that a running one made
            skip are not numbered).
        date: the loop's clock when the poll started, in seconds (as
            :meth:`Loop.now <cadence.Loop.now>`; virtual seconds on a virtual loop).

    The poll runs until it is finished: by the binding when the operation returns (the default),
    or by :meth:`finish` (for pollers made with ``finish_on_return=False``). Until then the
    poller starts no other poll.
    """

    __slots__ = ("_handle_id", "_state", "date", "number")

    def __init__(self, state: LoopState, handle_id: int, number: int, date: float) -> None:
        self._state = state
        self._handle_id = handle_id
        self.number = number
        self.date = date

    def finish(self) -> bool:
        """Marks this poll finished, so that the poller's next tick may start another.

        Callable from any thread, at any time (also from inside the operation), and more than
        once.

        Returns:
            True if this call finished the poll; False if it was finished already, or its poller
            (or loop) has been closed, when there is nothing left to finish.
        """
        if self._state.closed:
            return False
        code = int(_lib.lib.cadence_poller_finish(self._handle_id, self.number))
        if code in (EALREADY, EBADF):
            return False
        check(code, "Poll.finish")
        return True

    def __repr__(self) -> str:
        return f"<cadence.Poll number={self.number} date={self.date!r}>"


class Shared:
    """What a poller's entry in the callback table and its handle share: the asyncio loop its
    awaitable operations run in, the polls running there, and the end of the poller for
    coroutines awaiting it."""

    __slots__ = ("__weakref__", "aloop", "done", "lock", "running")

    def __init__(self, aloop: asyncio.AbstractEventLoop | None, state: LoopState) -> None:
        self.aloop = aloop
        self.lock = threading.Lock()
        self.running: set[concurrent.futures.Future[object]] = set()
        #: Ended when the poller is over (cancelled, closed, or its loop closed).
        self.done: Channel[None] = Channel(state)

    def end(self) -> None:
        """The poller is over: cancels its running awaitable polls and wakes the coroutines
        awaiting it. Idempotent; any thread."""
        with self.lock:
            running, self.running = self.running, set()
        self.done.end()
        for future in running:
            future.cancel()


async def _await(awaitable: Awaitable[object]) -> object:
    return await awaitable


def _async_poll_done(
    shared: Shared, poll: Poll, finish_on_return: bool, future: concurrent.futures.Future[object]
) -> None:
    """When an awaitable poll is over: finishes it and reports its exception to asyncio."""
    with shared.lock:
        shared.running.discard(future)
    if finish_on_return:
        poll.finish()
    if future.cancelled() or future.exception() is None or shared.aloop is None:
        return
    context = {
        "message": f"exception in the operation of a cadence.Poller, poll {poll.number}",
        "exception": future.exception(),
    }
    with contextlib.suppress(RuntimeError):  # that asyncio loop is closed
        shared.aloop.call_soon_threadsafe(shared.aloop.call_exception_handler, context)


def _start_async_poll(
    shared: Shared, poll: Poll, awaitable: Awaitable[object], finish_on_return: bool
) -> None:
    """Runs an awaitable that an operation returned in the poller's asyncio loop."""
    aloop = shared.aloop
    if aloop is None or aloop.is_closed():
        if inspect.iscoroutine(awaitable):
            awaitable.close()
        poll.finish()
        where = "outside a running asyncio loop" if aloop is None else "in a closed asyncio loop"
        raise TypeError(
            f"the operation of a cadence.Poller returned an awaitable, but the poller was made "
            f"{where}: make it inside a coroutine (async def) for async operations"
        )
    future = asyncio.run_coroutine_threadsafe(_await(awaitable), aloop)
    with shared.lock:
        if shared.done.ended:
            future.cancel()
        else:
            shared.running.add(future)
    future.add_done_callback(functools.partial(_async_poll_done, shared, poll, finish_on_return))


def _run_poll(
    shared: Shared,
    state: LoopState,
    operation: Callable[[Poll], object],
    finish_on_return: bool,
    event: tuple[int, float, int],
) -> None:
    """The table entry of a poller: runs the operation for one C poll."""
    number, date, handle_id = event
    poll = Poll(state, handle_id, number, date)
    try:
        result = operation(poll)
    except BaseException:
        poll.finish()  # a poll whose operation failed must not stall the poller
        raise
    if inspect.isawaitable(result):
        _start_async_poll(shared, poll, result, finish_on_return)
    elif finish_on_return:
        poll.finish()


def make_entry(
    shared: Shared,
    state: LoopState,
    operation: Callable[[Poll], object],
    finish_on_return: bool,
) -> Callable[[Any], object]:
    """The callable to register for a poller."""
    return lambda event: _run_poll(shared, state, operation, finish_on_return, event)


class Poller(_CancelledOnClose):
    """An operation run every interval, never overlapping, only while active; made by
    :meth:`Loop.poller <cadence.Loop.poller>` (Swift's ``Poller``).

    - A poll starts on each tick unless the previous one is still running: a slow operation
      delays the next poll to the first tick after it finishes, instead of stacking polls.
    - :meth:`set_active` with False removes the timer and nothing polls; True polls at once (on
      the loop's next pass) and restarts the ticks one interval later.
    - The timer's :attr:`tolerance` is 10 % of the interval unless given.

    :meth:`cancel` stops it for good; :meth:`close` (or leaving a ``with`` block) cancels it and
    releases the handle. Dropping the object does *not* stop it: the binding keeps the operation
    until the poller is cancelled or closed, or its loop closes.

    asyncio: an operation may be a coroutine function (``async def``), or return any awaitable,
    when the poller is made inside a running asyncio loop: each poll then runs as a task of that
    loop, and is finished when it completes (with ``finish_on_return=True``), so polls still never
    overlap. An exception it raises goes to the asyncio loop's exception handler, and the poller
    goes on; cancelling the poller cancels a running poll. ``await poller`` waits until the
    poller is stopped, and cancelling the awaiting task stops it.

    Threads: the operation runs on the thread running the loop; every method may be called from
    any thread and from the operation.
    """

    def __init__(
        self,
        loop: Loop,
        state: LoopState,
        handle: int,
        key: int,
        interval: float,
        shared: Shared,
    ) -> None:
        super().__init__(loop, state, handle, key, f"every {interval!r} s")
        self._interval = interval
        self._active = True
        self._shared = shared

    def _ended(self) -> None:
        """After a cancel or close: awaitable polls still running are cancelled and coroutines
        awaiting the poller return."""
        self._shared.end()

    def __await__(self) -> Generator[Any, None, None]:
        """``await poller``: waits in the running asyncio loop until the poller is cancelled or
        closed, or its loop closes. Cancelling the awaiting task cancels the poller, so
        ``await asyncio.wait_for(poller, 60)`` polls for a minute.
        """
        return self._wait().__await__()

    async def _wait(self) -> None:
        try:
            await self._shared.done.wait_ended()
        except asyncio.CancelledError:
            if not self.closed:
                with contextlib.suppress(BadHandle):
                    self.cancel()
            raise

    @property
    def interval(self) -> float:
        """Seconds between polls."""
        return self._interval

    @property
    def tolerance(self) -> float:
        """Seconds of lateness the poll timer may use (never early): the one given, or 10 % of
        the interval.

        Raises:
            BadHandle: the poller or its loop is closed.
        """
        where = "Poller.tolerance"
        self._require_open(where)
        out = ctypes.c_double()
        check(int(_lib.lib.cadence_poller_tolerance(self._handle, out)), where)
        return out.value

    @property
    def active(self) -> bool:
        """Whether the poller polls: not paused by :meth:`set_active` and not cancelled.

        Raises:
            BadHandle: the poller or its loop is closed.
        """
        return self._active and not self.cancelled

    def set_active(self, active: bool) -> None:
        """Pauses (False) or resumes (True) polling.

        While paused the timer is removed and nothing polls. Resuming polls at once (on the
        loop's next pass, unless a poll is still running) and restarts the ticks from now.
        Setting the current state again does nothing.

        Args:
            active: True to poll, False to pause; a :class:`bool`.

        Raises:
            TypeError: ``active`` is not a bool.
            AlreadyCancelled: the poller was cancelled (it cannot be resumed; make a new one).
            BadHandle: the poller or its loop is closed.
        """
        where = "Poller.set_active"
        _args.flag(active, where, "active")
        self._require_open(where)
        check(int(_lib.lib.cadence_poller_set_active(self._handle, int(active))), where)
        self._active = active

    def finish(self, number: int) -> bool:
        """Finishes poll ``number`` (as :meth:`Poll.finish` does), from any thread.

        Args:
            number: a :attr:`Poll.number`, an int from 0 to 2**64 - 1.

        Returns:
            True if this call finished that poll; False if it was not running (finished
            already, or never started).

        Raises:
            TypeError: ``number`` is not an int.
            InvalidArgument: ``number`` is negative or too large.
            BadHandle: the poller or its loop is closed.
        """
        where = "Poller.finish"
        value = poll_number(number, where)
        self._require_open(where)
        code = int(_lib.lib.cadence_poller_finish(self._handle, value))
        if code == EALREADY:
            return False
        check(code, where)
        return True

    def _status(self) -> str:
        closed = self._state_word()
        if closed:
            return closed
        try:
            if self.cancelled:
                return "cancelled"
        except CadenceError:
            return "invalid"
        return "active" if self._active else "paused"
