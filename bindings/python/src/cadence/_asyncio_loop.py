"""The real event loop of :mod:`cadence.asyncio`: asyncio's selector event loop whose timers are
Cadence one-shots (see that module's description)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import math
import selectors
import threading
import time
from collections.abc import Callable
from typing import Any

from . import _batch, _cancels, _lib, _state, _table
from ._async import deliver_errors, descriptor
from ._asyncio_pending import Pending, install, raw, uninstall
from ._asyncio_selector import Selector
from ._asyncio_timer import Timer
from ._checks import finite_seconds
from ._run import sigint_stops_run
from .errors import RUNNING_OR_THREAD, LoopBusy, check
from .loop import Loop

_run_pass = _lib.lib.cadence_loop_run_pass_collect
_UNTIMED = _table.UNTIMED
_own_cancels, _flush_own = _cancels.PENDING, _cancels.flush  # checked first: a call costs more
_COUNT, _CURSOR, _WORDS, _CAPACITY = _batch.COUNT, _batch.CURSOR, _batch.WORDS, _batch.CAPACITY

__all__ = ["MODE", "TOLERANCE", "EventLoop"]

MODE = b"default"
#: The tolerance of the timers armed in this context (``cadence.asyncio.tolerance``); None: the
#: loop's own.
TOLERANCE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "cadence.asyncio.tolerance", default=None
)


def _date(when: object) -> float:
    """``when`` as a float date: an int beyond a double's range is as far as an infinity.

    Raises:
        TypeError: ``when`` is not a real number (a str, None, a complex...).
    """
    if isinstance(when, (str, bytes, bytearray)):  # float() would parse them
        raise TypeError(f"asyncio timer: when must be a number of seconds, got {when!r}")
    try:
        return float(when)  # type: ignore[arg-type]  # anything float() takes, checked here
    except OverflowError:
        return math.inf if when > 0 else -math.inf  # type: ignore[operator]  # an int: it compares
    except (TypeError, ValueError):
        raise TypeError(f"asyncio timer: when must be a number of seconds, got {when!r}") from None


class EventLoop(asyncio.SelectorEventLoop):
    """An asyncio event loop whose timers are Cadence's (see the module's description).

    Args:
        loop: the Cadence loop to run on; None (the default) makes a real one, which the event
            loop closes with itself. A loop given is not closed; while the event loop runs, it
            runs that loop (its ``run`` then raises :class:`~cadence.LoopBusy`).
        tolerance: seconds that every timer may fire late unless :func:`tolerance` says
            otherwise, >= 0 and finite; default 0 (each timer at its own time, as servers want).

    Raises:
        TypeError, InvalidArgument: a bad ``tolerance`` (as :func:`tolerance`); TypeError also
            for a ``loop`` that is not a :class:`cadence.Loop`.
        NotSupported: a virtual ``loop`` (use :class:`VirtualEventLoop`).
        LoopBusy: ``loop`` is under another of these event loops, not closed yet, or runs on a
            thread of its own (``Loop.start_thread``).
    """

    def __init__(self, loop: Loop | None = None, *, tolerance: float = 0.0) -> None:
        #: Whether this iteration's select found the Cadence loop's descriptor readable: its
        #: pass runs once the iteration's I/O callbacks are queued (_process_events).
        self._pass_due = False
        #: What a refused start names (C's error): made once, not at every flush.
        self._where = f"{type(self).__name__}.call_at"
        super().__init__(Selector(self._select))  # first: a failed loop must still close
        self._owns = False
        try:
            self._tolerance = finite_seconds(tolerance, type(self).__name__, "tolerance")
            if not isinstance(getattr(self, "_ready", None), collections.deque):
                raise RuntimeError("cadence.asyncio needs asyncio's ready queue, missing here")
            if loop is not None and not isinstance(loop, Loop):
                raise TypeError(
                    f"{type(self).__name__}: loop must be a cadence.Loop or None, got {loop!r}"
                )
            self._owns = loop is None
            self.cadence: Loop = self._make_cadence() if loop is None else loop
            """The Cadence loop under this event loop: its own timers, publishers and
            countdowns run on the asyncio thread beside asyncio's."""
            self._state = self.cadence._state
            # The starts and cancels not yet handed to C (_asyncio_pending): asyncio's loops are
            # not thread-safe, so these are made on the loop's thread (other threads come in
            # through call_soon_threadsafe). Every use of the Cadence loop hands them over first.
            pending = Pending()
            install(self._state, pending, type(self).__name__)
            self._pending = pending
            self._timers, self._cancels = pending.timers, pending.cancels
            self._armed = pending.armed
            # The timers of infinite waits (no end: nothing to arm), kept until cancelled as
            # asyncio keeps them in its heap, so that a task waiting on one stays reachable. By
            # identity: handles compare equal by date, callback and arguments.
            self._forever: dict[int, Timer] = {}
            self._fd = self._watch()
            self._collected = _batch.Collected()
        except BaseException:
            self.close()
            raise

    def _make_cadence(self) -> Loop:
        return Loop()

    def _watch(self) -> int | None:
        fd = descriptor(self._state, type(self).__name__)
        self._selector._inner.register(fd, selectors.EVENT_READ)  # type: ignore[attr-defined]
        return fd

    def time(self) -> float:
        """The clock of asyncio's loops, ``time.monotonic()`` (CLOCK_MONOTONIC, in seconds),
        which is also the clock that Cadence's timers keep in nanoseconds: a ``call_at(when)``
        never runs before ``time.monotonic()`` reads ``when``. (Cadence's own API reports the same
        clock as seconds since the epoch: :meth:`cadence.Loop.now`.)"""
        return time.monotonic()

    def call_later(  # type: ignore[override]  # typeshed's TypeVarTuple form, same arguments
        self,
        delay: float,
        callback: Callable[..., object],
        *args: Any,
        context: contextvars.Context | None = None,
    ) -> asyncio.TimerHandle:
        """Calls ``callback(*args)`` ``delay`` seconds from now (:meth:`time`), never before, up to
        the tolerance in force late; ``asyncio.sleep`` comes here.

        Raises:
            TypeError: ``delay`` is None or not a number. ValueError: ``delay`` is NaN.
            RuntimeError: the loop is closed.
        """
        if delay is None:
            raise TypeError("call_later: delay must be a number of seconds, got None")
        if type(delay) is not float:
            delay = _date(delay)  # a str refused, an int beyond a double infinite
        return self._arm(self.time() + delay, callback, args, context)

    def call_at(  # type: ignore[override]  # typeshed's TypeVarTuple form, same arguments
        self,
        when: float,
        callback: Callable[..., object],
        *args: Any,
        context: contextvars.Context | None = None,
    ) -> asyncio.TimerHandle:
        """Calls ``callback(*args)`` at ``when`` (this loop's :meth:`time`), never before, up to
        the tolerance in force late; every asyncio timeout comes here.

        Raises:
            TypeError: ``when`` is None or not a number (a str included). ValueError: ``when`` is
                NaN. A number beyond a double's range is an infinite wait (no timer), as
                ``math.inf``.
            RuntimeError: the loop is closed.
        """
        if when is None:
            raise TypeError("when cannot be None")
        return self._arm(when, callback, args, context)

    def _flush(self) -> None:
        """Hands the pending starts and cancels to C (see ``_asyncio_pending``), with the
        recorded cancels of Cadence's own timers (``_cancels``)."""
        if _own_cancels:
            _flush_own()
        self._armed.shrink()  # first: the table may be empty before the starts take keys
        pending = self._pending
        if pending.timers or pending.cancels:
            pending.flush(raw(self._state), self._where)
        if self._state.errors:  # a Ctrl-C that Cadence's SIGINT handler recorded in the flush
            deliver_errors(self._state, self, self.cadence)

    def _arm(
        self,
        when: float,
        callback: Callable[..., object],
        args: tuple[Any, ...],
        context: contextvars.Context | None,
    ) -> Timer:
        """A timer handle for ``when`` (:meth:`time`), on a Cadence one-shot armed for that date
        at the next flush (``_asyncio_pending``): an absolute date, so timers fire in the order
        of their dates however close, whenever they are handed to C, and ``call_at(1.3)`` on the
        virtual clock is due at 1.3 exactly (C takes a date within a float's rounding of a
        nanosecond as that nanosecond)."""
        if self._closed:  # type: ignore[attr-defined]  # BaseEventLoop's, as is_closed() reads
            raise RuntimeError("Event loop is closed")
        if self._debug:  # type: ignore[attr-defined]  # asyncio's checks of call_at, in debug mode
            self._check_thread()  # type: ignore[attr-defined]
            self._check_callback(callback, "call_at")  # type: ignore[attr-defined]
        # Checked here, not at the flush, where a bad date would cost the turn's other starts.
        date = when if type(when) is float else _date(when)
        if date != date:
            raise ValueError(f"asyncio timer: when must be a number of seconds, got {when!r}")
        timer = Timer(when, callback, args, self, context)
        if timer._source_traceback:  # debug mode: where it was made, ending as asyncio's does at
            del timer._source_traceback[-3:]  # the caller (not in Timer, here, call_at/_later)
        if date < math.inf:
            late = TOLERANCE.get()
            if late is None:
                late = self._tolerance
            date = date if date > -math.inf else 0.0  # every date before the clock's 0 is its 0
            # A record of the one-shot to come, whose handle will end with it: -1 until the flush.
            timer._date, timer._late, timer._cadence = date, late, -1
            self._timers.append(timer)  # one step: see _asyncio_pending
        else:  # an infinite wait has no timer, as it has no end; kept for what waits on it
            timer._cadence = -2  # first: a cancel in between then has nothing to take out
            self._forever[id(timer)] = timer
        return timer

    def run_forever(self) -> None:
        """Runs the event loop until ``stop()`` (asyncio's), and the Cadence loop with it.

        Raises:
            LoopBusy: the Cadence loop is run, attached or threaded elsewhere.
        """
        if self.is_running():  # this loop (from one of its callbacks): asyncio's own error
            raise RuntimeError("This event loop is already running")
        # A Ctrl-C that lands in the binding's callback code, which C calls during a pass, is
        # recorded and raised after the pass (as Loop.run does), not dropped by ctypes with the
        # rest of a batch; anywhere else it is raised at once. Any other handler (asyncio.Runner's)
        # is left alone.
        main = threading.current_thread() is threading.main_thread()
        state = self._state
        if state.claimer is self:  # a claim of this loop's, which an interrupt kept (not running)
            state.release()
        try:  # the claim inside: an interrupt as it returns must not keep the loop for good
            if not state.claim(by=self):
                raise LoopBusy(
                    context=f"{type(self).__name__}.run_forever", detail=RUNNING_OR_THREAD
                )
            self._pending.owner = threading.get_ident()
            with sigint_stops_run(state) if main else contextlib.nullcontext():
                super().run_forever()
        finally:
            if state.claimer is self:
                state.release()

    def close(self) -> None:
        """Closes the event loop (asyncio's), then the Cadence loop if the event loop made it.
        Its timers never run, as asyncio forgets its scheduled ones: those not yet handed to
        Cadence are forgotten, and those armed in the Cadence loop are cancelled there.

        Raises:
            LoopBusy: the event loop made the Cadence loop, which runs or has a thread of its own
                (``Loop.close``); the event loop is closed all the same, its timers cancelled.
        """
        super().close()
        if (forever := getattr(self, "_forever", None)) is not None:
            forever.clear()  # as asyncio forgets its scheduled handles
        if (state := getattr(self, "_state", None)) is not None and state.claimer is self:
            state.release()  # a claim of a run that an interrupt cut (close() never runs in one)
        if (pending := getattr(self, "_pending", None)) is not None:
            pending.owner = threading.get_ident()  # closed from any thread while not running
            pending.discard()
            # Cancelled also when this event loop made the Cadence loop: that loop's close may
            # fail (run or threaded meanwhile), which would leave them armed there.
            self._cancel_armed(pending)
            try:
                self._flush()
            finally:
                uninstall(self._state, pending)
        if self._owns:
            self.cadence.close()

    def _cancel_armed(self, pending: Pending) -> None:
        """Adds to the pending cancels every timer of this event loop armed in C (its table's)."""
        for timer in pending.armed.timers():
            if (handle := timer._cadence) is not None and handle > 0:  # -1: never got to C
                pending.cancels.append(handle)
            timer._cadence = None

    def _select(self, inner: selectors.BaseSelector, timeout: float | None) -> list[Any]:
        """Asyncio's select: waits for I/O or the Cadence loop's descriptor, whose pass then
        runs in :meth:`_process_events`. The pending starts and cancels go to C first: the
        descriptor then wakes for the earliest date."""
        self._flush()
        events = inner.select(timeout)
        for index, (key, _) in enumerate(events):
            if key.fd == self._fd:
                del events[index]
                self._pass_due = True
                break
        return events

    def _process_events(self, event_list: list[Any]) -> None:
        """The I/O callbacks join the ready queue (asyncio's), then the pass that the select
        asked for, whose due timers join the queue after them, as asyncio queues its due timers
        after its I/O callbacks: data that arrives as its read's timeout expires is read. (Run
        inside the select, the pass's own callbacks could also change a reader that the
        select's events name, which asyncio's step would then undo.)"""
        super()._process_events(event_list)  # type: ignore[misc]  # the selector loop's
        if self._pass_due:
            self._pass_due = False
            self._pass()
        elif self._collected.words[_COUNT]:  # an interrupt cut the last pass's queueing
            self._enqueue()
            if self._state.errors:  # a Ctrl-C recorded there (_state.GLUE)
                deliver_errors(self._state, self, self.cadence)

    def _pass(self) -> None:
        """A Cadence pass. The one-shots of this event loop that it fires last (a quiet loop's
        wake-up: all of them) come back collected, not called from C, and join the ready queue
        here, in fire-date order (``cadence_loop_run_pass_collect``, whose mask is what marks
        their userdata: ``_table.UNTIMED``); any others were called during the pass."""
        state, collected = self._state, self._collected
        words = collected.words
        self._enqueue()  # what an interrupt left, before C writes over it (nothing, but for one)
        words[_CURSOR] = 0
        try:
            # No flush: done before the wait.
            code = _run_pass(
                raw(state), MODE, _UNTIMED, collected.records, _CAPACITY, collected.count
            )
        finally:  # also when a Ctrl-C that came during the call is raised as it returns
            self._enqueue()
        if state.errors:
            deliver_errors(state, self, self.cadence)
        if code:
            check(code, type(self).__name__)

    def _enqueue(self) -> None:
        """Queues the timers of the collected records not queued yet (their userdata at
        ``words[CURSOR:COUNT * WORDS:WORDS]``) as C's call of each would have (``Timer.__call__``,
        inline: an interrupt at a call's start would lose the timer), and takes them out of the
        event loop's table. Not ``Armed.take``, whose key would be free before the cursor moves.
        An interrupt (Ctrl-C) is caught, the record it cut finished (:meth:`_finish`), and the
        cursor in the words keeps the place past it, which the next pass (or loop iteration)
        goes on from: no record is queued twice or lost, and no key read again once free."""
        words = self._collected.words
        if not (end := words[_COUNT] * _WORDS):
            return
        armed, step, freed = self._armed, _WORDS, []
        slots, base, ready = armed.slots, armed.base, self._ready.append  # type: ignore[attr-defined]
        index = words[_CURSOR]
        try:
            while index < end:
                key = words[index] - base
                if 0 <= key < len(slots) and (timer := slots[key]) is not None:  # else not this
                    if timer._cadence is not None:  # table's, or taken: a closed event loop's
                        timer._cadence = None
                        ready(timer)
                    slots[key] = None
                    freed.append(key)
                index += step
            words[_CURSOR] = index
            words[_COUNT] = 0  # C writes it only on success
            armed.free.extend(freed)
        except BaseException:
            self._finish(index, end, freed)
            raise

    def _finish(self, index: int, end: int, freed: list[int]) -> None:
        """After an exception in :meth:`_enqueue`: finishes the record at ``index`` that it cut,
        wherever it was, moves the cursor past it and frees the keys of the records passed
        (those not freed already). Every step may be repeated."""
        armed, words = self._armed, self._collected.words
        key, slots = words[index] - armed.base if index < end else -1, armed.slots
        if 0 <= key < len(slots):
            if (timer := slots[key]) is not None:
                ready = self._ready  # type: ignore[attr-defined]
                # By identity: asyncio's handles compare equal by date, callback and arguments.
                if timer._cadence is not None or not (
                    timer._cancelled or any(queued is timer for queued in ready)
                ):
                    timer._cadence = None
                    ready.append(timer)
                slots[key] = None
                freed.append(key)
            elif key not in freed and key not in armed.free:  # cut before its key was listed
                freed.append(key)
        words[_CURSOR] = min(index + _WORDS, end) if index < end else index
        known = set(armed.free)
        armed.free.extend(key for key in dict.fromkeys(freed) if key not in known)


# The queueing of a pass's fires is glue too: a Ctrl-C there is recorded and raised after it.
_state.GLUE.update(f.__code__ for f in (EventLoop._enqueue, EventLoop._finish))
