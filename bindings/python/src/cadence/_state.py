"""What the binding knows about one C loop: its handle, its C callbacks, and where the exceptions
of its Python callbacks go (the checks of argument types are ``_checks``).

The userdata of every registration is a key into the callback table (:mod:`cadence._table`),
given up when C says it is dead. An :class:`Ending` userdata is also told at release.

An exception raised by a callback never reaches C. On the loop's own thread it goes to
:func:`threading.excepthook` at once; anywhere else (inside :meth:`Loop.run`, a pass, an
attached asyncio loop) it is kept on the :class:`LoopState`, the loop is stopped, and the call
that ran the loop raises it (of several, the first, unless a later one is not an
:class:`Exception`, which wins; the others go to :func:`threading.excepthook`).
"""

from __future__ import annotations

import contextlib
import ctypes
import inspect
import sys
import threading
import weakref
from typing import Any, Callable

from . import _asyncio_armed, _batch, _cancels, _lib, _table, _take
from .errors import check, error_for
from .tick import Tick

_stop, _has_thread = _lib.lib.cadence_loop_stop, _lib.lib.cadence_loop_has_thread
#: The thread idents of the calls running a loop (a run, a pass, an attachment), and the state
#: of each loop with a thread of its own: only these threads call timer callbacks. Changed under
#: the GIL, before a run enters C and after it returned. C knows which loops run, but not which
#: Python threads, and asking it would cost a ctypes call on every cancel: this list is what
#: lets a cancel keep the GIL when no other thread can be in a callback (``ScheduledTimer.cancel``).
RUNS: list[object] = []


class Ending:
    """A registration's userdata that must know when the registration ends without a final call
    (cancelled, given up, or its loop closed): :func:`end` calls :meth:`end`."""

    __slots__ = ()

    def end(self) -> None:
        """Called once the registration is over; any thread. Idempotent."""


def end(key: int) -> None:
    """A registration's end, by its key: C's release function, or a cancel that C handed the key
    back to instead (``cadence_cancel_steal``, the one cancel protocol of every kind). Frees the
    key and tells an :class:`Ending` userdata."""
    userdata = _table.steal(key)
    if isinstance(userdata, Ending):
        userdata.end()


def _no_table() -> Any:
    return None


class LoopState:
    """One C loop: its handle (0 once destroyed), how it is being run, and the errors kept for
    the call that runs it. It holds no reference to the :class:`~cadence.Loop`."""

    #: The table of armed timers of the cadence.asyncio event loop over this loop, if any, as a
    #: weak reference (``_asyncio_armed``): where C's calls for a userdata with ``UNTIMED`` go.
    armed: Callable[[], Any] = staticmethod(_no_table)

    def __init__(self, handle: int, *, virtual: bool) -> None:
        self.handle, self.virtual, self.lock = handle, virtual, threading.Lock()
        # What C cannot know: a run driven from Python (poll, then one pass at a time) and an
        # attachment to asyncio are runs between C's passes too, and a stop() of such a run must
        # end it at its next pass. Whether the loop has a thread of its own is C's (``thread``).
        self.runner: int | None = None  # the thread in Loop.run, or the attached asyncio loop's
        self.claimer: object = None  # what claimed it, when it said (claim's ``by``)
        self.stopping = self.closing = False  # a stop() of such a run; a destroy under way
        self.errors: list[BaseException] = []
        self.starting, self.starts = threading.Lock(), 0  # start_thread calls, made one at a time
        self.on_fire, self.on_release, self.on_countdown, self.on_poll, self.on_batch = _callbacks(
            self
        )
        check(_lib.lib.cadence_loop_set_callbacks(handle, self.on_fire, self.on_release), "Loop")
        check(_lib.lib.cadence_loop_set_fire_batch(handle, self.on_batch), "Loop")

    @property
    def running(self) -> bool:
        """Whether a ``Loop.run`` is under way or the loop is attached to asyncio."""
        return self.runner is not None

    @property
    def thread(self) -> bool:
        """Whether a thread of its own runs it, as C says (``cadence_loop_has_thread``): from
        ``start_thread`` until ``stop_thread`` has waited for it; False once destroyed. Any
        thread (not a flush: the plain handle)."""
        out = ctypes.c_int()
        return _has_thread(self.__dict__["handle"], out) == 0 and bool(out.value)

    def callbacks_from_thread(self, value: bool) -> None:
        """Records in :data:`RUNS` (True) that the loop's own thread may call callbacks from
        before it starts, or (False) that it no longer can. Idempotent."""
        if value and self not in RUNS:
            RUNS.append(self)
            _cancels.flush()  # a hand-over: the recorded cancels go to C first
        elif not value and self in RUNS:  # two stop_thread calls say False twice
            RUNS.remove(self)

    def claim(self, by: object = None) -> bool:
        """Records that this thread runs the loop, for ``by`` if given (``claimer``, which a
        caller reads in its ``finally`` to know whether it holds the loop: an interrupt as
        ``claim`` returns loses its answer); False if it is run or threaded already."""
        with self.lock:
            if self.runner is not None or self.thread:
                return False
            self.claimer, self.runner, self.stopping = by, threading.get_ident(), False
            RUNS.append(self.runner)
        try:
            _cancels.flush()  # before any pass of the run, and on this run's thread's behalf
        except BaseException:  # an interrupt (Ctrl-C) there: the run never starts, nor holds it
            self.release()
            raise
        return True

    @property
    def closed(self) -> bool:
        """Whether the loop is closed (its handle is gone)."""
        return not self.handle

    def release(self) -> None:
        """Records that this thread's run is over."""
        runner, self.runner, self.claimer = self.runner, None, None
        if runner is not None and runner in RUNS:  # not yet there if a claim was interrupted
            RUNS.remove(runner)

    def run_pass(self, mode: bytes) -> int:
        """One pass on this thread (``cadence_loop_run_pass``), recorded in :data:`RUNS`."""
        RUNS.append(runner := threading.get_ident())
        try:
            _cancels.flush()
            return int(_lib.lib.cadence_loop_run_pass(self.handle, mode))
        finally:
            RUNS.remove(runner)

    def retire(self) -> None:
        """After the C loop was destroyed. Its C callbacks stay: a release that a cancel on
        another thread began before the destroy may still come (``cadence_loop_close``)."""
        self.handle = 0

    def fail(self, error: BaseException) -> None:
        """Routes an exception of a callback (see the module's notes)."""
        if self.thread:
            hook(error)
        else:
            self.errors.append(error)
            self.stopping = True
            _stop(self.handle)

    def raise_errors(self) -> None:
        """Raises the kept exception, if any; the others go to :func:`threading.excepthook`."""
        errors, self.errors = self.errors, []
        if errors:
            chosen = next((e for e in errors if not isinstance(e, Exception)), errors[0])
            for error in errors:
                if error is not chosen:
                    hook(error)
            try:
                raise chosen
            finally:
                del chosen, errors


def hook(error: BaseException) -> None:
    """Passes ``error`` to :func:`threading.excepthook`; one the hook raises goes to
    :func:`sys.excepthook`, as :class:`threading.Thread` does, and nothing further."""
    try:
        args = (type(error), error, error.__traceback__, threading.current_thread())
        threading.excepthook(threading.ExceptHookArgs(args))
    except BaseException as hook_error:  # noqa: BLE001 - the hook's failure, reported once
        with contextlib.suppress(BaseException):
            sys.excepthook(type(hook_error), hook_error, hook_error.__traceback__)


def _callbacks(state: LoopState) -> tuple[Any, Any, Any, Any, Any]:
    """The C callbacks of one loop. Each catches everything, so that nothing reaches ctypes; a
    SIGINT that arrives in them is recorded rather than raised (see ``GLUE``)."""
    new, tick_type, slots, steal = tuple.__new__, Tick, _table.slots, _table.steal  # cells
    free_all, let_go, ended = _table.free_all, _cancels.LET_GO, _table.ENDED
    pending, flush = _cancels.PENDING, _cancels.flush  # recorded cancels (_cancels)
    views = _batch.Views()
    flag = _table.UNTIMED
    owner = weakref.ref(state)  # held weakly: the state is freed without the cycle collector

    def fail(error: BaseException) -> None:
        if (kept := owner()) is not None:
            kept.fail(error)

    def untimed() -> Any:  # the table of the event loop's armed timers (_asyncio_armed)
        kept = owner()
        return None if kept is None else kept.armed()

    def fire(key: int, date: float, skipped: int, final: int) -> None:
        if key >= flag:  # an asyncio timer's one-shot (final): its callback takes nothing
            if (table := untimed()) is not None and (timer := table.take(key)) is not None:
                call(timer)
            return
        tick = new(tick_type, (date, skipped))  # first: no allocation (a collection, whose
        # finalizers may cancel) between the check and the call
        # A final call: C passes the key no more, so it is free already.
        callback = steal(key) if final else slots[key]
        if callback is let_go:  # a recorded cancel C has not had yet: never called
            flush()
            return
        try:
            callback(tick)
        except BaseException as error:  # noqa: BLE001 - routed, never into C
            fail(error)
        if pending:  # the cancels this callback made, before C fires anything else
            flush()

    def call(function: Any, *args: Any) -> None:
        try:
            function(*args)
        except BaseException as error:  # noqa: BLE001 - routed, never into C
            fail(error)
        if pending:
            flush()

    def release(key: int) -> None:  # every stop that hands no key back comes here
        if key < flag:
            call(end, key)
        elif (table := untimed()) is not None:  # an asyncio timer's: else its table is gone
            table.take(key)

    def batch(address: int, count: int, started: int) -> None:  # one-shots' fires (_batch)
        keys, dates = views.read(address, count, started)
        sources, cursor = views.sources, views.started
        # The keys to free, together at the end (C passes them no more); each slot is emptied as
        # its call starts (_table.drop's rule: an owned key is kept, ENDED), so that a cancel
        # from a callback then asks C, which says the call started. An asyncio timer's key is
        # taken from its event loop's table (looked up once) as its call starts.
        freed: list[int] = []
        table: Any = None
        try:
            for index in range(count):
                cursor[0] = index + 1  # C: this record's call has started
                if not sources[index]:  # cancelled or reset by an earlier callback
                    continue
                key = keys[index]
                try:
                    if key < flag:
                        tick = new(tick_type, (dates[index], 0))  # first: see fire
                        callback = slots[key]
                        if slots[key + 1]:  # owned by its timer (_table.OWNER)
                            slots[key] = ended
                        else:
                            slots[key] = None
                            freed.append(key)
                        if callback is not let_go:  # else a recorded cancel: never called
                            callback(tick)
                    else:  # an asyncio timer's: no Tick to make, never owned
                        if table is None and (table := untimed()) is None:
                            continue  # its event loop is gone
                        if (callback := table.take(key)) is not None:  # else a closed one's
                            callback()
                except BaseException as error:  # noqa: BLE001 - routed, never into C
                    fail(error)
        finally:
            free_all(freed)
            if pending:  # the cancels the batch's callbacks made, before C's next step
                flush()

    def countdown(raw: Any, key: int) -> None:
        event = raw[0]
        progress = steal(key) if event.finished else slots[key]
        call(progress.event, event.remaining, bool(event.finished))

    def poll(raw: Any, key: int) -> None:
        event = raw[0]
        call(slots[key].poll, event.source, event.number, event.date)

    functions = (fire, release, countdown, poll, batch)
    GLUE.update(f.__code__ for f in (*functions, call, fail, flush, untimed, _cancels.steal_all))
    armed = _asyncio_armed.Armed
    GLUE.update(f.__code__ for f in (armed.take, armed.drop_all, armed.hold_all, armed.give_back))
    GLUE.add(_take.take.__code__)
    kinds: Any = _lib.CALLBACK_TYPES
    return tuple(kind(f) for kind, f in zip(kinds, functions))


#: The code of the C callbacks, and of the bookkeeping that hands records to C (the flushes of
#: ``_cancels`` and ``_asyncio_pending``, the queueing of collected fires): a SIGINT handler that
#: finds one of them running records the KeyboardInterrupt instead of raising it where no ``try``
#: would catch it, or where it would cut records in half; the run, or the event loop's next
#: flush or pass, raises it once they are done.
GLUE: set[Any] = set()


class Weak:
    """The userdata of a callback held weakly (``weak=True``): a bound method through
    :class:`weakref.WeakMethod`, anything else through :class:`weakref.ref`. When the target is
    collected, the weak reference's callback cancels the registration at once."""

    __slots__ = ("handle", "ref")

    def __init__(self, callback: Callable[[Tick], object], where: str) -> None:
        self.handle = 0
        make: Any = weakref.WeakMethod if inspect.ismethod(callback) else weakref.ref
        try:
            self.ref = make(callback, self._gone)
        except TypeError:
            raise TypeError(
                f"{where}: a weak callback must be weakly referenceable, not "
                f"{type(callback).__name__}"
            ) from None

    def adopt(self, handle: int) -> None:
        """Records the handle to cancel; cancels at once if the target is already gone."""
        self.handle = handle
        if self.ref() is None:
            self._gone(None)

    def _gone(self, _: object) -> None:
        if self.handle and (key := _lib.lib.cadence_cancel_steal(self.handle)) > 0:
            end(key)

    def __call__(self, tick: Tick) -> None:
        if (target := self.ref()) is not None:
            target(tick)


def made(function: Any, where: str, *args: Any, loop: Any = None) -> int:
    """The handle a C function writes to its last argument, ``out``; raises for an error, saying
    so when ``loop``, that of the handle in ``args``, is closed (see ``errors.error_for``)."""
    check(function(*args, out := _lib.Handle()), where, loop)
    return int(out.value)


def register(function: Any, where: str, userdata: object, *args: Any, loop: Any = None) -> int:
    """Calls a registering C function with ``args``, then ``userdata`` (held first) and ``out``;
    returns the handle. When it fails, which calls no callback, ``userdata`` is dropped and the
    error raised (``loop`` as for :func:`made`)."""
    code = function(*args, key := _table.hold(userdata), out := _lib.Handle())
    if code:
        _table.drop(key)
        raise error_for(code, where, loop)
    return int(out.value)
