"""Countdowns: the whole seconds left to a deadline, computed from the loop's clock."""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable

from . import _registry
from .cancellable import _CancelledOnClose, _release
from .errors import CadenceError

if TYPE_CHECKING:
    from . import _lib
    from ._registry import LoopState
    from .loop import Loop

__all__ = ["Countdown"]


class Progress:
    """What a countdown has delivered, shared by its entry in the callback table and its handle
    (which may be collected first)."""

    __slots__ = ("finished", "handle_id", "lock", "orphaned", "remaining", "state")

    def __init__(self, state: LoopState) -> None:
        self.state = state
        self.remaining: int | None = None
        self.finished = False
        self.handle_id = 0
        #: Set when the handle was collected before the countdown finished: the finish releases.
        self.orphaned = False
        self.lock = threading.Lock()


def _deliver(
    progress: Progress,
    on_value: Callable[[int], object],
    on_finish: Callable[[], object] | None,
    event: tuple[int, bool, float],
) -> None:
    """The table entry of a countdown: forwards one C event to the user's callbacks."""
    remaining, finished, _date = event
    if not finished:
        progress.remaining = remaining
        on_value(remaining)
        return
    progress.finished = True
    try:
        if on_finish is not None:
            on_finish()
    finally:
        with progress.lock:
            orphaned = progress.orphaned
        if orphaned:
            _release(progress.state, progress.handle_id)


def make_entry(
    progress: Progress,
    on_value: Callable[[int], object],
    on_finish: Callable[[], object] | None,
) -> Callable[[Any], object]:
    """The callable to register for a countdown."""
    return lambda event: _deliver(progress, on_value, on_finish, event)


def _release_unless_running(progress: Progress, handle_id: int, key: int) -> None:
    # Collected while running: keep going (releasing would cancel) and let the finish release.
    with progress.lock:
        if _registry.is_registered(key):
            progress.orphaned = True
            return
    _release(progress.state, handle_id)


class Countdown(_CancelledOnClose):
    """A countdown started by :meth:`Loop.countdown <cadence.Loop.countdown>` (Swift's
    ``Scheduler.countdown(to:tick:)`` with ``sink(receiveCompletion:receiveValue:)``).

    Its callback receives the whole seconds left to the deadline, rounded up: at once, then
    whenever the value changes on a tick, then 0 at the deadline; then ``on_finish`` is called
    once and the countdown is over (:attr:`finished`, and :attr:`cancelled` is True too).

    :meth:`cancel` stops it early; :meth:`close` (or leaving a ``with`` block) cancels it and
    releases the handle. Dropping the object does *not* cancel it: the binding keeps its callbacks
    until it finishes, is cancelled, or its loop closes.

    Threads: every method may be called from any thread and from callbacks.
    """

    def __init__(
        self,
        loop: Loop,
        state: LoopState,
        handle: _lib.CancellableHandle,
        key: int,
        progress: Progress,
        deadline: float,
        tick: float,
    ) -> None:
        self._progress = progress
        self._deadline = deadline
        self._tick = tick
        progress.handle_id = handle.id
        super().__init__(loop, state, handle, key, f"to {deadline!r} every {tick!r} s")

    def _make_finalizer(
        self, state: LoopState, handle_id: int, key: int | None
    ) -> weakref.finalize[..., Any]:
        assert key is not None
        return weakref.finalize(self, _release_unless_running, self._progress, handle_id, key)

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
        """The last value passed to the callback: whole seconds left, rounded up (0 at the end).

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
