"""Pollers: an operation every interval, never overlapping, only while active."""

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import inspect
from collections.abc import Awaitable, Generator
from typing import TYPE_CHECKING, Any

from . import _checks, _lib, _state
from ._async import Channel, until_ended
from .cancellable import Owned, cancel_result
from .errors import EBADF, InvalidArgument

if TYPE_CHECKING:
    from .loop import Loop

__all__ = ["Poll", "Poller"]


class Poll:
    """One poll of a :class:`Poller`, as passed to its operation.

    Attributes:
        number: 1 for the poller's first poll, then 2, 3, ... (ticks skipped while a poll ran
            are not numbered).
        date: the loop's clock when the poll started, in seconds (as
            :meth:`Loop.now <cadence.Loop.now>`; virtual seconds on a virtual loop).

    The poll runs until it is finished: when the operation returns (the default), or by
    :meth:`finish` (pollers made with ``finish_on_return=False``). Until then the poller starts
    no other poll.
    """

    __slots__ = ("_handle", "date", "number")

    def __init__(self, handle: int, number: int, date: float) -> None:
        self._handle, self.number, self.date = handle, number, date

    def finish(self) -> bool:
        """Marks this poll finished, so that the poller's next tick may start another. Callable
        from any thread, at any time (also inside the operation), and more than once.

        Returns:
            True if this call finished the poll; False if it was finished already, or its poller
            (or loop) is closed, when there is nothing left to finish.
        """
        code = _lib.lib.cadence_poller_finish(self._handle, self.number)
        return code != EBADF and cancel_result(code, self, "finish")

    def __repr__(self) -> str:
        return f"<cadence.Poll number={self.number} date={self.date!r}>"


class _Operation(_state.Ending):
    """A poller's userdata: its operation, the asyncio loop its awaitable polls run in (the one
    it was made in, if any), the polls running there, and the end of the poller for coroutines
    awaiting it."""

    __slots__ = ("aloop", "done", "finish_on_return", "operation", "running")

    def __init__(self, state: _state.LoopState, operation: Any, finish_on_return: bool) -> None:
        self.operation, self.finish_on_return = operation, finish_on_return
        try:
            self.aloop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.aloop = None
        self.running: set[concurrent.futures.Future[None]] = set()
        self.done: Channel[None] = Channel(state)  # ended when the poller is over

    def poll(self, handle: int, number: int, date: float) -> None:
        """One C poll: runs the operation; a poll that raises is finished (never a stall)."""
        poll = Poll(handle, number, date)
        try:
            result = self.operation(poll)
            if inspect.isawaitable(result):
                self._start(poll, result)
            elif self.finish_on_return:
                poll.finish()
        except BaseException:
            poll.finish()
            raise

    def _start(self, poll: Poll, awaitable: Awaitable[object]) -> None:
        """Runs an awaitable poll as a task of the poller's asyncio loop; TypeError (the awaitable
        closed, if a coroutine) when there is none or it is closed."""
        aloop = self.aloop
        if aloop is None or aloop.is_closed():
            if inspect.iscoroutine(awaitable):
                awaitable.close()
            where = "outside a running" if aloop is None else "in a closed"
            raise TypeError(
                f"the operation of a cadence.Poller returned an awaitable, but the poller was made "
                f"{where} asyncio loop: make it inside a coroutine (async def) for async operations"
            )
        future = asyncio.run_coroutine_threadsafe(self._await(poll, awaitable), aloop)
        # No lock: adding, discarding and copying the set are each atomic, and end() ends ``done``
        # before it copies ``running``: a future added after that copy finds the end below.
        self.running.add(future)
        future.add_done_callback(self.running.discard)
        if self.done.ended:
            future.cancel()

    async def _await(self, poll: Poll, awaitable: Awaitable[object]) -> None:
        """Awaits a poll's awaitable, then finishes the poll (with ``finish_on_return``); its
        exception goes to the asyncio loop's exception handler, as for a callback of
        ``call_soon``."""
        try:
            await awaitable
        except Exception as error:  # noqa: BLE001 - reported by the handler, the poller goes on
            message = f"exception in the operation of a cadence.Poller, poll {poll.number}"
            context = {"message": message, "exception": error}
            asyncio.get_running_loop().call_exception_handler(context)
        finally:
            if self.finish_on_return:
                poll.finish()

    def end(self) -> None:
        """The poller is over: lets go of its operation (and what it captured), cancels its
        running awaitable polls and wakes the coroutines awaiting it. Idempotent; any thread."""
        self.operation = _ended
        self.done.end()
        for future in list(self.running):
            future.cancel()


def _ended(poll: Poll) -> None:
    """The operation of a poller that is over (no poll starts after its end)."""


def start(
    loop: Loop, interval: float, operation: Any, tolerance: float | None, finish_on_return: bool
) -> Poller:
    """:meth:`Loop.poller <cadence.Loop.poller>`."""
    where, state = "Loop.poller", loop._state
    every = _checks.seconds(interval, where, "interval")
    _checks.function(operation, where, "operation")
    late = -1.0 if tolerance is None else _checks.seconds(tolerance, where, "tolerance")
    if tolerance is not None and late < 0:  # C would read -1.0 as "10 % of the interval"
        raise InvalidArgument(
            context=where, detail=f"tolerance must be >= 0 and finite or None, got {late!r}"
        )
    finish = _checks.flag(finish_on_return, where, "finish_on_return")
    userdata = _Operation(state, operation, finish)
    times = (state.handle, every, late, state.on_poll)
    handle = _state.register(_lib.lib.cadence_poller_start, where, userdata, *times)
    return Poller(handle, loop, every, userdata)


class Poller(Owned):
    """An operation run every interval, never overlapping, only while active; made by
    :meth:`Loop.poller <cadence.Loop.poller>` (Swift's ``Poller``).

    - A poll starts on each tick unless the previous one is still running: a slow operation
      delays the next poll to the first tick after it finishes, instead of stacking polls.
    - :meth:`set_active` with False removes the timer and nothing polls; True polls at once (on
      the loop's next pass) and restarts the ticks one interval later.
    - The timer's :attr:`tolerance` is 10 % of the interval unless given.

    :meth:`cancel` stops it for good; :meth:`close` (or leaving a ``with`` block) cancels it and
    gives the handle up. Collected, it is cancelled, unless detached.

    asyncio: an operation may be a coroutine function (``async def``), or return any awaitable,
    when the poller is made inside a running asyncio loop: each poll then runs as a task of that
    loop, and is finished when it completes (with ``finish_on_return=True``), so polls still never
    overlap. An exception it raises goes to the asyncio loop's exception handler, and the poller
    goes on; cancelling the poller cancels a running poll. ``await poller`` waits until the
    poller is stopped, and cancelling the awaiting task stops it.

    Threads: the operation runs on the thread running the loop; every method may be called from
    any thread and from the operation.
    """

    __slots__ = ("_operation",)

    def __init__(self, handle: int, loop: Loop, interval: float, operation: _Operation) -> None:
        super().__init__(handle, loop, f"every {interval!r} s")
        self._operation = operation

    def __await__(self) -> Generator[Any, None, None]:
        """``await poller``: waits in the running asyncio loop until the poller is cancelled or
        closed, or its loop closes. Cancelling the awaiting task cancels the poller, so
        ``await asyncio.wait_for(poller, 60)`` polls for a minute.
        """
        return until_ended(self._operation.done, self).__await__()

    @property
    def interval(self) -> float:
        """Seconds between polls (C's ``cadence_poller_interval``).

        Raises:
            BadHandle: the poller or its loop is closed.
        """
        return self._get(_lib.lib.cadence_poller_interval, "interval")

    @property
    def tolerance(self) -> float:
        """Seconds of lateness the poll timer may use (never early): the one given, or 10 % of
        the interval.

        Raises:
            BadHandle: the poller or its loop is closed.
        """
        return self._get(_lib.lib.cadence_poller_tolerance, "tolerance")

    @property
    def active(self) -> bool:
        """Whether the poller polls: not paused by :meth:`set_active` and not cancelled.

        Raises:
            BadHandle: the poller or its loop is closed.
        """
        out = ctypes.c_int()
        self._check(_lib.lib.cadence_poller_active(self._handle, out), "active")
        return bool(out.value)

    def set_active(self, active: bool) -> None:
        """Pauses (False) or resumes (True) polling. While paused the timer is removed and
        nothing polls. Resuming polls at once (on the loop's next pass, unless a poll is still
        running) and restarts the ticks from now. Setting the current state again does nothing.

        Raises:
            TypeError: ``active`` is not a bool.
            AlreadyCancelled: the poller was cancelled (make a new one).
            BadHandle: the poller or its loop is closed.
        """
        value = _checks.flag(active, "Poller.set_active", "active")
        self._check(_lib.lib.cadence_poller_set_active(self._handle, value), "set_active")

    def finish(self, number: int) -> bool:
        """Finishes poll ``number`` (as :meth:`Poll.finish` does), from any thread.

        Returns:
            True if this call finished that poll; False if it was not running.

        Raises:
            TypeError: ``number`` is not an int.
            InvalidArgument: ``number`` is negative or above 2**64 - 1.
            BadHandle: the poller or its loop is closed.
        """
        where = "Poller.finish"
        if isinstance(number, bool) or not isinstance(number, int):
            raise TypeError(f"{where}: number must be an int, not {type(number).__name__}")
        if not 0 <= number < 2**64:
            raise InvalidArgument(
                context=where, detail=f"number must be 0 to 2**64 - 1, got {number!r}"
            )
        return cancel_result(_lib.lib.cadence_poller_finish(self._handle, number), self, "finish")

    def _status(self) -> str:
        status = super()._status()
        return "paused" if status == "active" and not self.active else status
