"""Pollers: an operation every interval, never overlapping, only while active."""

from __future__ import annotations

import ctypes
import numbers
from typing import TYPE_CHECKING, Any, Callable

from . import _args, _lib
from .cancellable import _CancelledOnClose
from .errors import EALREADY, EBADF, CadenceError, InvalidArgument, check

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
        raise InvalidArgument(context=f"{where}: number={number!r} is out of range")
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
        code = int(
            _lib.lib.cadence_poller_finish(_lib.CancellableHandle(self._handle_id), self.number)
        )
        if code in (EALREADY, EBADF):
            return False
        check(code, "Poll.finish()")
        return True

    def __repr__(self) -> str:
        return f"<cadence.Poll number={self.number} date={self.date!r}>"


def _run_poll(
    state: LoopState,
    operation: Callable[[Poll], object],
    finish_on_return: bool,
    event: tuple[int, float, int],
) -> None:
    """The table entry of a poller: runs the operation for one C poll."""
    number, date, handle_id = event
    poll = Poll(state, handle_id, number, date)
    try:
        operation(poll)
    except BaseException:
        poll.finish()  # a poll whose operation failed must not stall the poller
        raise
    if finish_on_return:
        poll.finish()


def make_entry(
    state: LoopState, operation: Callable[[Poll], object], finish_on_return: bool
) -> Callable[[Any], object]:
    """The callable to register for a poller."""
    return lambda event: _run_poll(state, operation, finish_on_return, event)


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

    Threads: the operation runs on the thread running the loop; every method may be called from
    any thread and from the operation.
    """

    def __init__(
        self,
        loop: Loop,
        state: LoopState,
        handle: _lib.CancellableHandle,
        key: int,
        interval: float,
    ) -> None:
        super().__init__(loop, state, handle, key, f"every {interval!r} s")
        self._interval = interval
        self._active = True

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
        check(int(_lib.lib.cadence_poller_tolerance(self._handle, ctypes.byref(out))), where)
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
        where = f"Poller.set_active({active!r})"
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
        where = f"Poller.finish({number!r})"
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
