"""Callback lifetime: the callback tables of the loops, and the C trampolines.

C never holds a Python object. Each callback is stored under a small integer key, and that key is
what C keeps as ``void *userdata`` (python-vlc's scheme). Each loop has one ``CFUNCTYPE`` object
per C callback type (:attr:`LoopState.on_tick`, :attr:`LoopState.on_countdown`,
:attr:`LoopState.on_poll`), passed to C for every subscription, scheduled timer, countdown and
poller of that loop; it looks the key up in the loop's table and calls the Python callable with
the event converted to Python values. Keys count up per loop; an odd key is a one-shot entry.
An entry stays until its subscription, timer, countdown or poller is cancelled or closed, its
scheduled timer fires, its countdown finishes, or its loop closes or is collected, whatever
happens to the Python objects meanwhile (python-libusb1 keeps its transfers the same way).

The callables live in a :class:`CallbackTable` that only the :class:`~cadence.Loop` object holds
strongly; a state holds its table weakly, and the module holds every state whose C loop exists
(:data:`_live`), so that the ``CFUNCTYPE`` objects C calls outlive the C loop. So a callback
that refers to its own loop (``loop.schedule(10, lambda tick: loop.stop())``) makes a cycle
that the garbage collector can collect, and collecting the loop closes it (its finalizer destroys
the C loop, so no callback of it starts afterwards). A loop stays alive while
``Loop.run`` runs it (the call holds it) and while it has a thread of its own (the module
``cadence._lifecycle`` holds it until ``stop_thread``).

An exception raised by a callback never reaches C, and none is lost. Where it goes depends on
who is calling:

- inside a binding call that runs callbacks before it returns (a countdown whose deadline has
  passed calls back from ``Loop.countdown``): it is re-raised from that call;
- on a thread inside ``Loop.run`` for the callback's loop: it is stored on the loop's
  :class:`LoopState`, the loop is stopped after the current pass, and ``Loop.run`` re-raises it;
- anywhere else, which means on the thread that ``Loop.start_thread`` started: no call of the
  program is waiting for it, so it is passed to :func:`threading.excepthook` at once (as for an
  exception in a :class:`threading.Timer`; a hook that raises has its own exception passed to
  :func:`sys.excepthook`, as a :class:`threading.Thread` does), and the loop goes on.

When several callbacks of one call raise, the call raises one of them, the first unless a later
one is not an :class:`Exception` (``SystemExit``, ``KeyboardInterrupt``), and the others go to
:func:`threading.excepthook`.

The trampolines catch everything around the lookup and the conversion too (an exception raised
there, by a signal handler for instance, goes where the callback's would), so
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
import sys
import threading
import weakref
from collections.abc import Iterator
from typing import Any, Callable, NoReturn, Protocol

from . import _lib
from .errors import error_for
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
        "listeners",
        "lock",
        "on_countdown",
        "on_poll",
        "on_tick",
        "runner",
        "serial",
        "stopping",
        "table",
        "thread",
        "virtual",
        "wake_mode",
    )

    def __init__(self, handle: int, table: CallbackTable, *, virtual: bool) -> None:
        self.handle = handle
        self.virtual = virtual
        self.closed = False
        #: The ident of the thread inside ``Loop.run``, or of the asyncio loop's thread while the
        #: loop is attached to it; or None. One run at a time: C refuses a second one only while
        #: it is inside a pass, and a run from Python (see ``cadence._running``) or an attached
        #: loop is outside C between passes.
        self.runner: int | None = None
        #: The mode of a run that ``cadence._running`` drives from Python, which a stop() from
        #: another thread wakes (see :meth:`stop`); None otherwise.
        self.wake_mode: bytes | None = None
        #: ``Loop.stop`` was called (or a callback failed) during the current ``Loop.run``.
        self.stopping = False
        #: Whether ``Loop.start_thread`` started a thread that has not been stopped yet.
        self.thread = False
        #: Counts the keys of this loop's entries (see :func:`register`).
        self.serial = itertools.count(1)
        #: What asyncio code waits on (channels, countdowns, pollers), ended when the loop closes.
        self.listeners: weakref.WeakSet[Ending] = weakref.WeakSet()
        #: The loop's :class:`CallbackTable`, held strongly by the ``Loop`` object alone.
        self.table = weakref.ref(table)
        # Re-entrant: a garbage-collection finalizer may run while this thread holds it.
        self.lock = threading.RLock()
        self._error: BaseException | None = None
        #: The C callbacks of this loop's entries (see :func:`_trampolines`).
        self.on_tick, self.on_countdown, self.on_poll = _trampolines(self)
        _live.add(self)

    @property
    def running(self) -> bool:
        """Whether a ``Loop.run`` call is in progress on any thread."""
        return self.runner is not None

    def enter_run(self) -> bool:
        """Records that this thread starts a ``Loop.run`` (or attaches the loop to its asyncio
        loop); False (and nothing recorded) if the loop is running already, on any thread, or
        has a thread of its own."""
        with self.lock:
            if self.runner is not None or self.thread:
                return False
            self.runner = threading.get_ident()
            self.stopping = False
        return True

    def leave_run(self) -> None:
        """Records that this thread's ``Loop.run`` is over."""
        with self.lock:
            self.runner = None
            self.stopping = False

    def runs_here(self) -> bool:
        """Whether the calling thread is inside a ``Loop.run`` of this loop."""
        return self.runner == threading.get_ident()

    def stop(self) -> None:
        """Makes the current ``Loop.run``, if any, return after its current pass. A run driven
        from Python on another thread waits in ``poll`` on the loop's descriptor: a zero-delay
        one-shot in its mode, which calls nothing (no userdata), makes it readable."""
        with self.lock:
            if self.runner is not None:
                self.stopping = True
            mode = self.wake_mode
        _lib.lib.cadence_loop_stop(self.handle)
        if mode is not None and not self.runs_here():
            out, lib = _lib.Handle(), _lib.lib
            if lib.cadence_loop_schedule(self.handle, 0.0, 0.0, mode, self.on_tick, None, out) == 0:
                lib.cadence_cancellable_release(out)

    def fail(self, error: BaseException) -> None:
        """Records an exception raised by a callback (or a KeyboardInterrupt for SIGINT), for
        ``Loop.run`` to raise, and stops the loop. Of several in one run, one is kept (see
        :func:`kept`: Ctrl-C wins over an Exception) and the others are passed to
        :func:`threading.excepthook`."""
        with self.lock:
            self._error, dropped = _keep(self._error, error)
        if dropped is not None:
            _hook(dropped)
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
        #: Key -> callable. Single dict operations are atomic, so no lock guards it.
        self.entries: dict[int, Callable[[Any], object]] = {}


#: The states whose C loop exists: C may call their trampolines until it is destroyed.
_live: set[LoopState] = set()
#: Per thread: .captured, the errors of a synchronous call in progress, or None; .in_c, the
#: state of the loop whose run is inside a C call that may call back (see ``cadence._running``),
#: or None; .user, whether this thread is in a user callback called by a trampoline (rather than
#: in binding code).
_local = threading.local()


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


def register(state: LoopState, callback: Callable[[Any], object], *, one_shot: bool) -> int:
    """Stores ``callback`` in the loop's table and returns the key to pass to C as ``userdata``.

    ``callback`` receives the event converted by the trampoline: a :class:`~cadence.Tick`, a
    ``(remaining, finished, date)`` tuple for a countdown, or a ``(number, date, source_id)``
    tuple for a poll. A ``one_shot`` entry (an odd key) is dropped before its first call.
    """
    table = state.table()
    if table is None:  # only while the loop is being collected, when nobody can call this
        raise RuntimeError("the loop is being collected")
    key: int = next(state.serial) << 1 | one_shot  # never 0, which would reach C as NULL
    table.entries[key] = callback
    return key


def unregister(state: LoopState, key: int) -> None:
    """Drops an entry; a missing key is fine."""
    table = state.table()
    if table is not None:
        table.entries.pop(key, None)


def abandoned(state: LoopState, key: int, handle: int) -> None:
    """After an exception between :func:`register` and the object that was to own ``key`` (a
    signal handler's ``KeyboardInterrupt``, say, or a failed C call): drops the entry and, if the
    C call had made a handle, cancels and releases it. The call that raised then never calls its
    callback (libuv's rule), and nothing is left behind. Idempotent."""
    unregister(state, key)
    if handle and not state.closed:
        _lib.lib.cadence_cancel(handle)
        _lib.lib.cadence_cancellable_release(handle)


def refused(
    state: LoopState, code: int, where: str, require_open: Callable[[str], object]
) -> NoReturn:
    """After the C call that was to use a callback entry failed with ``code``: raises. Callers make
    that call inside a ``try`` whose ``except`` calls :func:`abandoned`, which drops the entry.

    A loop closed on another thread after the caller's own closed check makes the C call answer
    EBADF; it is named as closed (``require_open`` raises BadHandle with the usual message).
    Callers read the loop's trampoline before that check: the trampolines go with the C loop, and
    one read after a close would be None, which ctypes refuses with an ArgumentError of its own.
    """
    if state.closed:
        require_open(where)
    raise error_for(code, where)


def is_registered(state: LoopState, key: int) -> bool:
    """Whether an entry is still in the table."""
    table = state.table()
    return table is not None and key in table.entries


def unregister_loop(state: LoopState) -> None:
    """Drops every entry of a loop whose C loop is destroyed, and ends its asyncio channels."""
    _live.discard(state)
    # C calls the trampolines no more; dropping them breaks the state's cycle with them, so that
    # reference counting frees a closed loop without waiting for the cycle collector.
    state.on_tick = state.on_countdown = state.on_poll = None
    table = state.table()
    if table is not None:
        table.entries.clear()
    for listener in list(state.listeners):
        listener.end()


def live_count() -> int:
    """How many callbacks the tables of the open loops hold (for tests)."""
    tables = [state.table() for state in list(_live)]
    return sum(len(table.entries) for table in tables if table is not None)


@contextlib.contextmanager
def capturing() -> Iterator[list[BaseException]]:
    """Collects the exceptions of callbacks that run on this thread before a C call returns.

    Once the call is over, the caller raises the one that :func:`kept` picks.
    """
    outer = getattr(_local, "captured", None)
    captured: list[BaseException] = []
    _local.captured = captured
    try:
        with binding_code():
            yield captured
    finally:
        _local.captured = outer


def _keep(
    kept: BaseException | None, new: BaseException
) -> tuple[BaseException, BaseException | None]:
    """Of an exception already kept for raising and a new one: the one to keep, and the one to
    pass on instead. The first wins, except that an exception that is not an :class:`Exception`
    (``SystemExit``, ``KeyboardInterrupt``: a request to end the program) wins over one that is."""
    if kept is None:
        return new, None
    if isinstance(kept, Exception) and not isinstance(new, Exception):
        return new, kept
    return kept, new


def raise_kept(errors: list[BaseException] | list[BaseException | None]) -> None:
    """Raises :func:`kept` of ``errors`` (those :func:`capturing` collected, say), if any."""
    if any(errors):
        error = kept(*errors)
        errors.clear()
        try:
            raise error
        finally:
            del error  # no cycle through the traceback's frames


def kept(*errors: BaseException | None) -> BaseException:
    """Of the exceptions of one call (those :func:`capturing` collected, or a run's and a Ctrl-C;
    Nones are skipped), the one the call raises; the others are passed to
    :func:`threading.excepthook`, so that none is lost."""
    chosen: BaseException | None = None
    for error in errors:
        if error is None:
            continue
        chosen, dropped = _keep(chosen, error)
        if dropped is not None:
            _hook(dropped)
    assert chosen is not None
    return chosen


def report(state: LoopState, error: BaseException) -> None:
    """Routes an exception raised by a callback of ``state``'s loop, or by its trampoline (see
    the module docstring)."""
    captured: list[BaseException] | None = getattr(_local, "captured", None)
    if captured is not None:
        captured.append(error)
    elif state.runs_here():
        state.fail(error)
    else:
        _hook(error)


def _hook(error: BaseException) -> None:
    """Passes ``error`` to :func:`threading.excepthook`. A hook that raises has its own exception
    passed to :func:`sys.excepthook`, as :class:`threading.Thread` does; and if that raises too,
    the exception is dropped: nothing may reach ctypes from a trampoline."""
    try:
        threading.excepthook(
            threading.ExceptHookArgs(
                (type(error), error, error.__traceback__, threading.current_thread())
            )
        )
    except BaseException as hook_error:  # noqa: BLE001 - the hook's failure, reported once
        with contextlib.suppress(BaseException):
            sys.excepthook(type(hook_error), hook_error, hook_error.__traceback__)


_new_tuple = tuple.__new__


def _take(state: LoopState, key: int | None, *, last: bool) -> Callable[[Any], object] | None:
    """The callable for ``key``; ``last`` (or a one-shot key) drops it first, so that a cancel
    inside its call sees it done. None: cancelled while the event was on its way, or the loop
    collected."""
    table = state.table()
    if table is None or key is None:
        return None
    if last or key & 1:
        return table.entries.pop(key, None)
    return table.entries.get(key)


def _call(state: LoopState, callback: Callable[[Any], object], value: object) -> None:
    """Calls the user's callback, routing what it raises."""
    local = _local
    outer = getattr(local, "user", False)
    try:
        local.user = True
        callback(value)
    except BaseException as error:  # noqa: BLE001 - routed to Loop.run or threading.excepthook
        local.user = outer
        report(state, error)
    finally:
        local.user = outer


def _trampolines(state: LoopState) -> tuple[Any, Any, Any]:
    """The C callbacks of one loop: tick, countdown event, poll. Each catches everything from its
    first line: nothing may propagate into C."""

    def on_tick(tick: ctypes._Pointer[_lib.CTick], key: int | None) -> None:
        # Once per fire: _take and _call inline, and the Tick made without its Python __new__.
        try:
            table = state.table()
            if table is None or key is None:
                return
            callback = table.entries.pop(key, None) if key & 1 else table.entries.get(key)
            if callback is None:
                return
            raw = tick[0]
            value = _new_tuple(Tick, (raw.fire_date, raw.skipped))
            local = _local
            outer = getattr(local, "user", False)
            local.user = True
            try:
                callback(value)
            finally:
                local.user = outer
        except BaseException as error:  # noqa: BLE001 - routed, never into C
            report(state, error)

    def on_countdown(event: ctypes._Pointer[_lib.CCountdownEvent], key: int | None) -> None:
        try:
            raw = event[0]
            finished = bool(raw.finished)
            callback = _take(state, key, last=finished)
            if callback is not None:
                _call(state, callback, (int(raw.remaining), finished, raw.date))
        except BaseException as error:  # noqa: BLE001 - routed, never into C
            report(state, error)

    def on_poll(poll: ctypes._Pointer[_lib.CPoll], key: int | None) -> None:
        try:
            callback = _take(state, key, last=False)
            if callback is not None:
                raw = poll[0]
                _call(state, callback, (int(raw.number), raw.date, int(raw.source)))
        except BaseException as error:  # noqa: BLE001 - routed, never into C
            report(state, error)

    return _lib.TICK_FN(on_tick), _lib.COUNTDOWN_FN(on_countdown), _lib.POLL_FN(on_poll)
