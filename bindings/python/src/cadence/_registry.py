"""Callback lifetime: the callback tables of the loops, and the C trampolines.

C never holds a Python object. Each callback is stored under a small integer key, and that key is
what C keeps as ``void *userdata`` (python-vlc's scheme). One module-level ``CFUNCTYPE`` object
per C callback type (:data:`TICK_TRAMPOLINE`, :data:`COUNTDOWN_TRAMPOLINE`,
:data:`POLL_TRAMPOLINE`) is passed to C for every subscription, scheduled timer, countdown and
poller; it looks the key up and calls the Python callable with the event converted to Python
values. An entry stays until its subscription, timer, countdown or poller is cancelled or closed,
its scheduled timer fires, its countdown finishes, or its loop closes or is collected, whatever
happens to the Python objects meanwhile (python-libusb1 keeps its transfers the same way).

The callables live in a :class:`CallbackTable` that only the :class:`~cadence.Loop` object holds
strongly; the module keeps the key -> :class:`LoopState` map, and a state holds its table weakly.
So a callback that refers to its own loop (``loop.schedule(10, lambda tick: loop.stop())``) makes
a cycle that the garbage collector can collect, and collecting the loop closes it (its finalizer
destroys the C loop, so no callback of it starts afterwards). A loop stays alive while
``Loop.run`` runs it (the call holds it) and while it has a thread of its own (the module
``cadence._lifecycle`` holds it until ``stop_thread``).

An exception raised by a callback never reaches C. Where it goes depends on who is calling:

- inside a binding call that runs callbacks before it returns (a countdown whose deadline has
  passed calls back from ``Loop.countdown``): it is re-raised from that call;
- on a thread inside ``Loop.run`` for the callback's loop: it is stored on the loop's
  :class:`LoopState`, the loop is stopped after the current pass, and ``Loop.run`` re-raises it;
- anywhere else, which means on the thread that ``Loop.start_thread`` started: no call of the
  program is waiting for it, so it is passed to :func:`threading.excepthook` at once (as for an
  exception in a :class:`threading.Timer`), and the loop goes on.

The trampolines catch everything around the lookup and the conversion too (an exception raised
there, by a signal handler for instance, goes to the innermost ``Loop.run`` of the thread), so
nothing reaches ctypes, which would print "Exception ignored on calling ctypes callback function"
and drop it. Only the instant a trampoline starts, before its ``try``, is out of reach: CPython
runs pending signal handlers there. ``cadence._running`` therefore replaces the default SIGINT
handler while the main thread is inside ``Loop.run`` with one that never raises in this glue code
(see :func:`in_user_code`).
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import threading
import weakref
from collections.abc import Iterator
from typing import Any, Callable, NamedTuple, Protocol

from . import _lib
from .tick import Tick


class Ending(Protocol):
    """Something that asyncio code may wait on, which must end when its loop closes."""

    def end(self) -> None:
        """Ends it: waiting coroutines wake up. Idempotent; any thread."""


class LoopState:
    """What the binding knows about one C loop. Shared by a :class:`~cadence.Loop` and every
    object made from it, and referenced from the module's key map; it holds no reference to any
    of them (its callback table weakly), so that dropping the last Python reference to a loop
    lets it be collected."""

    __slots__ = (
        "_error",
        "closed",
        "handle",
        "interrupted",
        "keys",
        "listeners",
        "lock",
        "runner",
        "stopping",
        "table",
        "thread",
        "virtual",
    )

    def __init__(self, handle: _lib.LoopHandle, *, virtual: bool) -> None:
        self.handle = handle
        self.virtual = virtual
        self.closed = False
        #: The ident of the thread inside ``Loop.run``, or None. One run at a time: C would
        #: refuse a second one too, but only while it is inside ``cadence_loop_run``, and a run
        #: in slices (see ``cadence._running``) is outside it between slices.
        self.runner: int | None = None
        #: ``Loop.stop`` was called (or a callback failed) during the current ``Loop.run``.
        self.stopping = False
        #: SIGINT arrived during the current ``Loop.run`` on the main thread.
        self.interrupted = False
        #: Whether ``Loop.start_thread`` started a thread that has not been stopped yet.
        self.thread = False
        #: Keys of this loop's entries in the callback table.
        self.keys: set[int] = set()
        #: What asyncio code waits on (channels, countdowns, pollers), ended when the loop closes.
        self.listeners: weakref.WeakSet[Ending] = weakref.WeakSet()
        #: The loop's :class:`CallbackTable`, held strongly by the ``Loop`` object alone.
        self.table: weakref.ref[CallbackTable] | None = None
        # Re-entrant: a garbage-collection finalizer may run while this thread holds it.
        self.lock = threading.RLock()
        self._error: BaseException | None = None

    @property
    def running(self) -> bool:
        """Whether a ``Loop.run`` call is in progress on any thread."""
        return self.runner is not None

    def enter_run(self) -> bool:
        """Records that this thread starts a ``Loop.run``; False (and nothing recorded) if the
        loop is running already, on any thread, or has a thread of its own."""
        with self.lock:
            if self.runner is not None or self.thread:
                return False
            self.runner = threading.get_ident()
            self.stopping = self.interrupted = False
        _runs().append(self)
        return True

    def leave_run(self) -> bool:
        """Records that this thread's ``Loop.run`` is over; says whether SIGINT interrupted it."""
        with self.lock:
            self.runner = None
            interrupted = self.interrupted
            self.stopping = self.interrupted = False
        runs = _runs()
        if runs and runs[-1] is self:
            runs.pop()
        return interrupted

    def runs_here(self) -> bool:
        """Whether the calling thread is inside a ``Loop.run`` of this loop."""
        return self.runner == threading.get_ident()

    def stop(self) -> None:
        """Makes the current ``Loop.run``, if any, return after its current pass (or slice)."""
        with self.lock:
            if self.runner is not None:
                self.stopping = True
        _lib.lib.cadence_loop_stop(self.handle)

    def interrupt(self) -> None:
        """Records SIGINT for the current ``Loop.run`` and stops it."""
        with self.lock:
            if self.runner is not None:
                self.interrupted = self.stopping = True
        _lib.lib.cadence_loop_stop(self.handle)

    def fail(self, error: BaseException) -> None:
        """Records an exception raised by a callback (the first one wins) and stops the loop."""
        with self.lock:
            if self._error is None:
                self._error = error
        self.stop()

    def take_error(self) -> BaseException | None:
        """The recorded exception, if any, which is then forgotten."""
        with self.lock:
            error, self._error = self._error, None
        return error


class CallbackTable:
    """The callbacks of one loop, by key. Only the :class:`~cadence.Loop` holds it strongly."""

    __slots__ = ("__weakref__", "entries")

    def __init__(self) -> None:
        self.entries: dict[int, _Entry] = {}


class _Entry(NamedTuple):
    callback: Callable[[Any], object]
    state: LoopState
    one_shot: bool


#: Key -> the state of the loop whose table holds the entry.
_owners: dict[int, LoopState] = {}
_lock = threading.RLock()  # re-entrant: finalizers may run at any allocation
_keys = itertools.count(1)  # 0 would reach C as NULL
#: Per thread: .captured, the errors of a synchronous call in progress, or None; .runs, the
#: states of the ``Loop.run`` calls in progress on this thread, innermost last; .user, whether
#: this thread is in a user callback called by a trampoline (rather than in binding code).
_local = threading.local()


def _runs() -> list[LoopState]:
    runs: list[LoopState] | None = getattr(_local, "runs", None)
    if runs is None:
        runs = _local.runs = []
    return runs


def runs_on_this_thread() -> list[LoopState]:
    """The states of the ``Loop.run`` calls in progress on this thread, innermost last."""
    return list(_runs())


def in_user_code() -> bool:
    """Whether this thread is running a user callback (or code it calls), as opposed to the
    binding's own code between C and the callback. The SIGINT handler of ``cadence._running`` raises
    KeyboardInterrupt only in user code, where the trampoline's ``try`` catches it."""
    return bool(getattr(_local, "user", False))


@contextlib.contextmanager
def binding_code() -> Iterator[None]:
    """Marks a stretch of binding code, such as a C call that may call back, inside a callback."""
    outer = in_user_code()
    _local.user = False
    try:
        yield
    finally:
        _local.user = outer


def _table(state: LoopState) -> CallbackTable | None:
    return state.table() if state.table is not None else None


def register(state: LoopState, callback: Callable[[Any], object], *, one_shot: bool) -> int:
    """Stores ``callback`` in the loop's table and returns the key to pass to C as ``userdata``.

    ``callback`` receives the event converted by the trampoline: a :class:`~cadence.Tick`, a
    ``(remaining, finished, date)`` tuple for a countdown, or a ``(number, date, source_id)``
    tuple for a poll. A ``one_shot`` entry is dropped before its first call.
    """
    key = next(_keys)
    with _lock:
        table = _table(state)
        if table is None:  # only while the loop is being collected, when nobody can call this
            raise RuntimeError("the loop is being collected")
        table.entries[key] = _Entry(callback, state, one_shot)
        _owners[key] = state
        state.keys.add(key)
    return key


def _drop(key: int) -> _Entry | None:
    """Drops an entry (with ``_lock`` held) and returns it, if its table still has it."""
    state = _owners.pop(key, None)
    if state is None:
        return None
    state.keys.discard(key)
    table = _table(state)
    return None if table is None else table.entries.pop(key, None)


def unregister(key: int) -> None:
    """Drops an entry; a missing key is fine."""
    with _lock:
        entry = _drop(key)
    # Freed here, after the lock: the callback may hold the last reference to a subscription
    # whose release waits in C for a tick being delivered, and that delivery needs the lock.
    del entry


def is_registered(key: int) -> bool:
    """Whether an entry is still in the table."""
    with _lock:
        return key in _owners


def unregister_loop(state: LoopState) -> None:
    """Drops every entry of a loop (when it closes) and ends its asyncio channels."""
    with _lock:
        dropped = [_drop(key) for key in list(state.keys)]
        state.keys.clear()
        table = _table(state)
        if table is not None:
            dropped += table.entries.values()
            table.entries.clear()
    del dropped  # freed after the lock, as in `unregister`
    for listener in list(state.listeners):
        listener.end()


def live_count() -> int:
    """How many callbacks the tables hold (for tests)."""
    with _lock:
        return len(_owners)


@contextlib.contextmanager
def capturing() -> Iterator[list[BaseException]]:
    """Collects the exceptions of callbacks that run on this thread before a C call returns.

    The caller re-raises the first one once the call is over.
    """
    outer = getattr(_local, "captured", None)
    captured: list[BaseException] = []
    _local.captured = captured
    try:
        with binding_code():
            yield captured
    finally:
        _local.captured = outer


def report(state: LoopState | None, error: BaseException) -> None:
    """Routes an exception raised by a callback of ``state``'s loop (see the module docstring);
    with ``state`` None (raised before the entry was found), to the thread's innermost run."""
    captured: list[BaseException] | None = getattr(_local, "captured", None)
    runs = _runs()
    if captured is not None:
        captured.append(error)
    elif state is not None and state.runs_here():
        state.fail(error)
    elif state is None and runs:
        runs[-1].fail(error)
    else:
        threading.excepthook(
            threading.ExceptHookArgs(
                (type(error), error, error.__traceback__, threading.current_thread())
            )
        )


def _take(userdata: int | None, *, last: bool) -> _Entry | None:
    """The entry for ``userdata``; ``last`` (or a one-shot entry) drops it first, so that a
    cancel inside its call sees it done."""
    if userdata is None:
        return None
    with _lock:
        state = _owners.get(userdata)
        table = None if state is None else _table(state)
        entry = None if table is None else table.entries.get(userdata)
        if entry is not None and (last or entry.one_shot):
            _drop(userdata)
    return entry  # None: cancelled while the event was on its way, or the loop collected


def _call(entry: _Entry, value: object) -> None:
    """Calls the user's callback, routing what it raises."""
    outer = in_user_code()
    try:
        _local.user = True
        entry.callback(value)
    except BaseException as error:  # noqa: BLE001 - routed to Loop.run or threading.excepthook
        _local.user = outer
        report(entry.state, error)
    finally:
        _local.user = outer


# Each trampoline catches everything from its first line: nothing may propagate into C.


def _on_tick(tick: ctypes._Pointer[_lib.CTick], userdata: int | None) -> None:
    entry = None
    try:
        entry = _take(userdata, last=False)
        if entry is not None:
            raw = tick[0]
            _call(entry, Tick(raw.fire_date, raw.skipped))
    except BaseException as error:  # noqa: BLE001 - routed, never into C
        report(None if entry is None else entry.state, error)


def _on_countdown(event: ctypes._Pointer[_lib.CCountdownEvent], userdata: int | None) -> None:
    entry = None
    try:
        raw = event[0]
        finished = bool(raw.finished)
        entry = _take(userdata, last=finished)
        if entry is not None:
            _call(entry, (int(raw.remaining), finished, raw.date))
    except BaseException as error:  # noqa: BLE001 - routed, never into C
        report(None if entry is None else entry.state, error)


def _on_poll(poll: ctypes._Pointer[_lib.CPoll], userdata: int | None) -> None:
    entry = None
    try:
        entry = _take(userdata, last=False)
        if entry is not None:
            raw = poll[0]
            _call(entry, (int(raw.number), raw.date, int(raw.source.id)))
    except BaseException as error:  # noqa: BLE001 - routed, never into C
        report(None if entry is None else entry.state, error)


#: The one C callback used by every subscription and scheduled timer.
TICK_TRAMPOLINE = _lib.TICK_FN(_on_tick)
#: The one C callback used by every countdown.
COUNTDOWN_TRAMPOLINE = _lib.COUNTDOWN_FN(_on_countdown)
#: The one C callback used by every poller.
POLL_TRAMPOLINE = _lib.POLL_FN(_on_poll)
