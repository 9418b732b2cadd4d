"""Callback lifetime: the table of live Python callbacks and the one C trampoline.

C never holds a Python object. Each callback is stored here under a small integer key, and that
key is what C keeps as ``void *userdata`` (python-vlc's scheme). A single module-level
``CFUNCTYPE`` object, :data:`TRAMPOLINE`, is passed to C for every subscription and one-shot
timer; it looks the key up and calls the Python callable. An entry stays until its subscription
is cancelled or closed, its one-shot timer fires or is cancelled, or its loop closes, whatever
happens to the Python objects meanwhile (python-libusb1 keeps its transfers the same way).

An exception raised by a callback never reaches C: the trampoline stores it on the loop's
:class:`LoopState`, stops the loop, and ``Loop.run`` re-raises it.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import threading
from typing import Callable, NamedTuple

from . import _lib
from .tick import Tick


class LoopState:
    """What the binding knows about one C loop. Shared by a :class:`~cadence.Loop` and every
    object made from it, and referenced from the callback table; it holds no reference to any of
    them, so that dropping the last Python reference to a loop lets it be collected."""

    __slots__ = ("_error", "closed", "handle", "keys", "lock", "running")

    def __init__(self, handle: _lib.LoopHandle) -> None:
        self.handle = handle
        self.closed = False
        #: How many ``Loop.run`` calls of this binding are inside C (for ``repr`` and ``running``).
        self.running = 0
        #: Keys of this loop's entries in the callback table.
        self.keys: set[int] = set()
        # Re-entrant: a garbage-collection finalizer may run while this thread holds it.
        self.lock = threading.RLock()
        self._error: BaseException | None = None

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
    callback: Callable[[Tick], object]
    state: LoopState
    one_shot: bool


_entries: dict[int, _Entry] = {}
_lock = threading.RLock()  # re-entrant: finalizers may run at any allocation
_keys = itertools.count(1)  # 0 would reach C as NULL


def register(state: LoopState, callback: Callable[[Tick], object], *, one_shot: bool) -> int:
    """Stores ``callback`` and returns the key to pass to C as ``userdata``."""
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


def _call(tick: ctypes._Pointer[_lib.CTick], userdata: int | None) -> None:
    if userdata is None:
        return
    with _lock:
        entry = _entries.get(userdata)
        if entry is not None and entry.one_shot:
            # A one-shot fires once: drop it before the call, so a cancel inside it sees it done.
            del _entries[userdata]
            entry.state.keys.discard(userdata)
    if entry is None:
        return  # cancelled while the tick was on its way
    raw = tick[0]
    try:
        entry.callback(Tick(raw.fire_date, raw.skipped))
    except BaseException as error:  # noqa: BLE001 - re-raised from Loop.run
        entry.state.fail(error)


def _trampoline(tick: ctypes._Pointer[_lib.CTick], userdata: int | None) -> None:
    # Nothing may propagate into C; _call already routed the callback's own exceptions.
    with contextlib.suppress(BaseException):
        _call(tick, userdata)


#: The one C callback used by every subscription and one-shot timer.
TRAMPOLINE = _lib.TICK_FN(_trampoline)
