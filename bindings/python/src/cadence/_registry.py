"""Callback lifetime: the table of live Python callbacks and the C trampolines.

C never holds a Python object. Each callback is stored here under a small integer key, and that
key is what C keeps as ``void *userdata`` (python-vlc's scheme). One module-level ``CFUNCTYPE``
object per C callback type (:data:`TICK_TRAMPOLINE`, :data:`COUNTDOWN_TRAMPOLINE`,
:data:`POLL_TRAMPOLINE`) is passed to C for every subscription, scheduled timer, countdown and
poller; it looks the key up and calls the Python callable with the event converted to Python
values. An entry stays until its subscription, timer, countdown or poller is cancelled or closed,
its scheduled timer fires, its countdown finishes, or its loop closes, whatever happens to the
Python objects meanwhile (python-libusb1 keeps its transfers the same way).

An exception raised by a callback never reaches C. Where it goes depends on who is calling:

- inside a binding call that runs callbacks before it returns (a countdown whose deadline has
  passed calls back from ``Loop.countdown``): it is re-raised from that call;
- on a thread inside ``Loop.run`` for the callback's loop: it is stored on the loop's
  :class:`LoopState`, the loop is stopped after the current pass, and ``Loop.run`` re-raises it;
- anywhere else, which means on the thread that ``Loop.start_thread`` started: no call of the
  program is waiting for it, so it is passed to :func:`threading.excepthook` at once (as for an
  exception in a :class:`threading.Timer`), and the loop goes on.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import threading
from collections.abc import Iterator
from typing import Any, Callable, NamedTuple

from . import _lib
from .tick import Tick


class LoopState:
    """What the binding knows about one C loop. Shared by a :class:`~cadence.Loop` and every
    object made from it, and referenced from the callback table; it holds no reference to any of
    them, so that dropping the last Python reference to a loop lets it be collected."""

    __slots__ = ("_error", "closed", "handle", "keys", "lock", "runners", "thread", "virtual")

    def __init__(self, handle: _lib.LoopHandle, *, virtual: bool) -> None:
        self.handle = handle
        self.virtual = virtual
        self.closed = False
        #: Thread ident -> how many ``Loop.run`` calls of this binding that thread has inside C
        #: (more than one only for a nested call that C is about to reject).
        self.runners: dict[int, int] = {}
        #: Whether ``Loop.start_thread`` started a thread that has not been stopped yet.
        self.thread = False
        #: Keys of this loop's entries in the callback table.
        self.keys: set[int] = set()
        # Re-entrant: a garbage-collection finalizer may run while this thread holds it.
        self.lock = threading.RLock()
        self._error: BaseException | None = None

    @property
    def running(self) -> bool:
        """Whether a ``Loop.run`` call is inside C on any thread."""
        with self.lock:
            return bool(self.runners)

    def enter_run(self) -> None:
        """Records that this thread is entering ``cadence_loop_run``."""
        ident = threading.get_ident()
        with self.lock:
            self.runners[ident] = self.runners.get(ident, 0) + 1

    def leave_run(self) -> None:
        """Records that this thread's ``cadence_loop_run`` returned."""
        ident = threading.get_ident()
        with self.lock:
            left = self.runners[ident] - 1
            if left:
                self.runners[ident] = left
            else:
                del self.runners[ident]

    def runs_here(self) -> bool:
        """Whether the calling thread is inside a ``Loop.run`` of this loop."""
        with self.lock:
            return threading.get_ident() in self.runners

    def fail(self, error: BaseException) -> None:
        """Records an exception raised by a callback (the first one wins) and stops the loop."""
        with self.lock:
            if self._error is None:
                self._error = error
        _lib.lib.cadence_loop_stop(self.handle)

    def take_error(self) -> BaseException | None:
        """The recorded exception, if any, which is then forgotten."""
        with self.lock:
            error, self._error = self._error, None
        return error


class _Entry(NamedTuple):
    callback: Callable[[Any], object]
    state: LoopState
    one_shot: bool


_entries: dict[int, _Entry] = {}
_lock = threading.RLock()  # re-entrant: finalizers may run at any allocation
_keys = itertools.count(1)  # 0 would reach C as NULL
_local = threading.local()  # .captured: the errors of a synchronous call in progress, or None


def register(state: LoopState, callback: Callable[[Any], object], *, one_shot: bool) -> int:
    """Stores ``callback`` and returns the key to pass to C as ``userdata``.

    ``callback`` receives the event converted by the trampoline: a :class:`~cadence.Tick`, a
    ``(remaining, finished, date)`` tuple for a countdown, or a ``(number, date, source_id)``
    tuple for a poll. A ``one_shot`` entry is dropped before its first call.
    """
    key = next(_keys)
    with _lock:
        _entries[key] = _Entry(callback, state, one_shot)
        state.keys.add(key)
    return key


def unregister(key: int) -> None:
    """Drops an entry; a missing key is fine."""
    with _lock:
        entry = _entries.pop(key, None)
        if entry is not None:
            entry.state.keys.discard(key)


def is_registered(key: int) -> bool:
    """Whether an entry is still in the table."""
    with _lock:
        return key in _entries


def unregister_loop(state: LoopState) -> None:
    """Drops every entry of a loop (when it closes)."""
    with _lock:
        for key in list(state.keys):
            _entries.pop(key, None)
        state.keys.clear()


def live_count() -> int:
    """How many callbacks the table holds (for tests)."""
    with _lock:
        return len(_entries)


@contextlib.contextmanager
def capturing() -> Iterator[list[BaseException]]:
    """Collects the exceptions of callbacks that run on this thread before a C call returns.

    The caller re-raises the first one once the call is over.
    """
    outer = getattr(_local, "captured", None)
    captured: list[BaseException] = []
    _local.captured = captured
    try:
        yield captured
    finally:
        _local.captured = outer


def report(state: LoopState, error: BaseException) -> None:
    """Routes an exception raised by a callback of ``state``'s loop (see the module docstring)."""
    captured: list[BaseException] | None = getattr(_local, "captured", None)
    if captured is not None:
        captured.append(error)
    elif state.runs_here():
        state.fail(error)
    else:
        threading.excepthook(
            threading.ExceptHookArgs(
                (type(error), error, error.__traceback__, threading.current_thread())
            )
        )


def _invoke(userdata: int | None, value: object, *, last: bool = False) -> None:
    """Calls the entry for ``userdata`` with ``value``; ``last`` drops the entry first."""
    if userdata is None:
        return
    with _lock:
        entry = _entries.get(userdata)
        if entry is not None and (last or entry.one_shot):
            # A last call: drop the entry before it, so that a cancel inside it sees it done.
            del _entries[userdata]
            entry.state.keys.discard(userdata)
    if entry is None:
        return  # cancelled while the event was on its way
    try:
        entry.callback(value)
    except BaseException as error:  # noqa: BLE001 - routed to Loop.run or threading.excepthook
        report(entry.state, error)


def _on_tick(tick: ctypes._Pointer[_lib.CTick], userdata: int | None) -> None:
    # Nothing may propagate into C; _invoke already routed the callback's own exceptions.
    with contextlib.suppress(BaseException):
        raw = tick[0]
        _invoke(userdata, Tick(raw.fire_date, raw.skipped))


def _on_countdown(event: ctypes._Pointer[_lib.CCountdownEvent], userdata: int | None) -> None:
    with contextlib.suppress(BaseException):
        raw = event[0]
        finished = bool(raw.finished)
        _invoke(userdata, (int(raw.remaining), finished, raw.date), last=finished)


def _on_poll(poll: ctypes._Pointer[_lib.CPoll], userdata: int | None) -> None:
    with contextlib.suppress(BaseException):
        raw = poll[0]
        _invoke(userdata, (int(raw.number), raw.date, int(raw.source.id)))


#: The one C callback used by every subscription and scheduled timer.
TICK_TRAMPOLINE = _lib.TICK_FN(_on_tick)
#: The one C callback used by every countdown.
COUNTDOWN_TRAMPOLINE = _lib.COUNTDOWN_FN(_on_countdown)
#: The one C callback used by every poller.
POLL_TRAMPOLINE = _lib.POLL_FN(_on_poll)
