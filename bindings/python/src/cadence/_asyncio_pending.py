"""The starts and cancels of :mod:`cadence.asyncio`'s timers, handed to C once per loop turn.

A ctypes call costs nearly half of asyncio's whole ``call_at`` (about 0.7 us), so a timer's start
and its cancel cross into C together with the others of the same turn: ``call_at`` records its
timer here (one append, so that an interrupt such as Ctrl-C can never leave part of a record; the
timer keeps its date and tolerance), ``TimerHandle.cancel()`` of a timer already in C records its
handle, and a cancel of one not yet handed over only counts it (its record is then skipped).
:meth:`Pending.flush` then makes one C call for every pending cancel
(``cadence_cancel_steal_batch``) and one for every pending start
(``cadence_loop_schedule_transient_batch``; a lone start, the common case of a quiet loop, makes
no array: it writes its date into arrays made once, :class:`Lone`), whose timers take
their keys in the event loop's table (``_asyncio_armed``) only then: a timer cancelled before it
was handed over never costs C or the table anything, as a cancelled timer costs asyncio's own
loop only its mark.

A flush comes before anything waits or reads Cadence's state: the event loop's select (so the
descriptor is armed for the earliest date before the wait, and a timer is armed before any pass
could fire a later one), the virtual twin's clock move, ``close()``, and every use of the Cadence
loop under the event loop (``EventLoop.cadence``): :func:`install` turns that loop's
:class:`~cadence._state.LoopState` into a :class:`FlushingState`, whose ``handle``, which every
call of Cadence's own API reads before going into C, flushes first. A loop under no event loop
keeps the plain class, so Cadence's own API pays nothing for this. A date is absolute (the
loop's monotonic clock), so arming at the next flush changes no timer's fire date or order; a
start of Cadence's own API made meanwhile flushes first, so ties keep the order of the calls.

Threads: asyncio's timers are made and cancelled on the event loop's thread. Only that thread
flushes (the one that runs the event loop, or ran it last, or made it; ``close()`` takes it
over): a use of the Cadence loop from another thread flushes nothing, and the loop's thread
flushes at its next select or use of the loop (two threads' flushes shared the table's keys).

Interrupts (a signal handler's exception, Ctrl-C, between two bytecodes): each list changes in
single steps (a pending start is one append; a flush takes a list whole, in one step), so an
interrupt never leaves part of a record, nor a date on the wrong timer. Whatever interrupts a
flush before it is done is caught there, and what C did not get goes back (:meth:`Pending._land`):
C's answers (an array zeroed before the call) say which starts it armed, which then get their
handles; the others give their keys back and return to the front of the pending starts, to be
armed by the next flush in the same order; cancels that never reached C return to the pending
ones, and the keys of those that did are freed. So nothing is lost or armed twice, where asyncio
can lose a callback between taking it from its heap and queueing it. (An exception raised in the
handler itself, a second signal in those microseconds, is the one case left.) While the main
thread runs the event loop, a Ctrl-C does not even cut a flush: these functions are among the
binding's glue (``_state.GLUE``), where Cadence's SIGINT handler records it, and the event loop
raises it once the flush is done; the handlers serve every other exception.
"""

from __future__ import annotations

import sys
import threading
import weakref
from array import array
from functools import partial
from itertools import compress
from operator import attrgetter, eq
from types import FrameType
from typing import Any, cast

from . import _cancels, _lib, _state
from ._asyncio_armed import Armed
from ._take import take
from .errors import LoopBusy, error_for

_start_batch = _lib.lib.cadence_loop_schedule_transient_batch
_ident, _getframe = threading.get_ident, sys._getframe
_WORD = _lib.WORD
_dates, _lates, _handles = attrgetter("_date"), attrgetter("_late"), attrgetter("_cadence")
_cancelled = attrgetter("_cancelled")
_NOTHING: array[int] = array("Q")  # no answer yet
_ZERO = bytes(8)  # one answer, before C gives it
_unsent = partial(eq, -1)  # a start not yet in C (a filter of C calls: see Pending._start)


class Pending:
    """The starts and cancels an event loop has not handed to C yet (see the module's notes).

    ``timers`` holds the timers of the pending starts (each with its ``_date`` and ``_late``);
    ``dropped`` counts those cancelled since (their ``_cadence`` is None); ``cancels`` holds the C
    handles of timers to cancel; ``armed`` the timers in C (the event loop's table).
    """

    __slots__ = (
        "__weakref__",
        "armed",
        "cancels",
        "dropped",
        "flushing",
        "lone",
        "owner",
        "timers",
    )

    def __init__(self) -> None:
        self.timers: list[Any] = []
        self.cancels: list[int] = []
        self.armed = Armed()
        self.dropped = 0
        #: The thread whose flushes count: the one that runs the event loop, or ran it last, or
        #: made it (asyncio's timers are made on it; ``close()`` takes it over).
        self.owner = _ident()
        #: The frame of the flush under way on that thread, if any (see :meth:`flush`).
        self.flushing: FrameType | None = None
        self.lone = Lone()

    def flush(self, handle: int, where: str) -> None:
        """Hands every pending cancel, then every pending start, to C for the loop ``handle``
        (each list taken whole first, so a failure leaves nothing half-pending).

        Raises:
            CadenceError: C refused some starts (its error, naming ``where``); their timers
                never fire, and every other record was handed over.
        """
        if self.owner != _ident():
            return
        # A flush called inside another (by a signal handler or a finalizer that uses the loop)
        # leaves its records to that one, which goes round again for them (the two would share
        # keys of the table); a frame left here by an interrupt that skipped the ``finally`` is
        # no longer on the stack.
        if (outer := self.flushing) is not None and _on_stack(outer):
            return
        self.flushing = _getframe()
        try:
            while self.cancels or self.timers:
                if self.cancels:
                    self._cancel()
                if self.timers:
                    self._start(handle, where)
        finally:
            self.flushing = None

    def _cancel(self) -> None:
        cancels: list[int] = []
        out: array[int] = array("q")  # C's answers: never 0 for these (a key, or "ended")
        try:
            take(self.cancels, cancels)
            handles = array(_WORD, cancels)
            out.frombytes(bytes(8 * len(handles)))
            _cancels.steal_all(handles, out)  # the one batch of cancels, shared with Cadence's API
            # A key comes back (> 0) for each timer stopped; a fired one (its key freed by the
            # fire) or one of a closed loop gives CADENCE_EBADF ("ended"), which drop_all skips.
            self.armed.drop_all(out)
        except BaseException:
            if any(out):  # C has them: the keys (freeing one twice changes nothing)
                self.armed.drop_all(out)
            else:  # never reached C: pending again
                self.cancels[:0] = cancels
            raise

    def _start(self, handle: int, where: str) -> None:
        timers: list[Any] = []
        keys: list[int] = []
        out: array[int] = _NOTHING  # C's answers, zeroed before the call: the handles
        try:
            take(self.timers, timers)
            dropped, self.dropped = self.dropped, 0
            if dropped:  # skip the records of timers cancelled before their start was handed over
                # C calls, not a comprehension (whose exceptions Python 3.12's tracing, as the
                # tests raise them, takes past this handler).
                timers[:] = compress(timers, map(_unsent, map(_handles, timers)))
            if not (count := len(timers)):  # the count is only a hint
                return
            # Each timer takes its key now, C's userdata the key with the table's base (UNTIMED:
            # its callback is called with no Tick).
            self.armed.hold_all(timers, keys)
            if count == 1:  # the common case of a quiet loop: no array made, no loops
                lone, timer = self.lone, timers[0]
                lone.out[0] = 0  # first: C's answer for the last lone start, which _land would read
                out, dates = lone.out, lone.dates
                dates[0], dates[1], lone.data[0] = timer._date, timer._late, keys[0]
                at_when, at_late, at_data, at_out = lone.addresses
                code = _start_batch(handle, 1, at_when, at_late, at_data, at_out)
                timer._cadence = out[0]  # 0: refused, never armed (C never calls it)
                if timer._cancelled:  # since the take: see below
                    self._settle(timers, out)
            else:
                out = array("Q", bytes(8 * count))
                when, late = array("d", map(_dates, timers)), array("d", map(_lates, timers))
                data = array(_WORD, keys)
                code = _start_batch(
                    handle,
                    count,
                    when.buffer_info()[0],
                    late.buffer_info()[0],
                    data.buffer_info()[0],
                    out.buffer_info()[0],
                )
                for timer, made in zip(timers, out):
                    timer._cadence = made
                # A cancel since the take (a signal handler's or a finalizer's) marked the handle
                # first, which nothing overwrites; it may have found -1 and only counted itself.
                if any(map(_cancelled, timers)):
                    self._settle(timers, out)
            if code:
                raise error_for(code, where)
        except BaseException:
            self._land(timers, keys, out)
            raise

    def _settle(self, timers: list[Any], out: array[int]) -> None:
        """Cancels at the next flush the one-shots C armed for timers cancelled since their
        starts were taken (by a signal handler or a finalizer; a second cancel of one that the
        cancel itself recorded is answered "ended")."""
        for timer, made in zip(timers, out):
            if timer._cancelled and made:
                timer._cadence = None
                self.cancels.append(made)

    def _land(self, timers: list[Any], keys: list[int], out: array[int]) -> None:
        """Settles starts that an exception cut (an interrupt, or C's refusal of some): each
        timer that C armed gets its handle (and, cancelled meanwhile, its cancel); each that it did
        not gives its key back and, unless it was refused or cancelled, goes back to the front of
        the pending starts (run once, by the flush's handler)."""
        unarmed, back = [], []  # (C's userdata, timer) of those C never had; those to start
        for index, timer in enumerate(timers):
            if made := out[index] if index < len(out) else 0:
                if timer._cancelled:  # since its start was taken (as in _settle)
                    timer._cadence = None
                    self.cancels.append(made)
                elif timer._cadence == -1:
                    timer._cadence = made
                continue
            if index < len(keys):  # hold_all had reached it
                unarmed.append((keys[index], timer))
            if timer._cadence == -1:
                back.append(timer)
            elif timer._cadence == 0:  # refused
                timer._cadence = None
        self.armed.give_back(unarmed)
        self.timers[:0] = back

    def discard(self) -> None:
        """Forgets the pending starts (their timers never fire: asyncio's ``close()`` forgets
        its scheduled timers too)."""
        timers: list[Any] = []
        take(self.timers, timers)
        self.dropped = 0
        for timer in timers:
            timer._cadence = None


class Lone:
    """The arrays of a lone start, made once per event loop (its flushes are one at a time):
    its date and tolerance, its userdata, C's answer (zeroed before each start), passed by
    addresses computed once, so that a lone start makes no array and hands C only words."""

    __slots__ = ("addresses", "data", "dates", "out")

    def __init__(self) -> None:
        self.dates, self.data, self.out = (
            array("d", bytes(16)),
            array(_WORD, _ZERO),
            array("Q", _ZERO),
        )
        at = self.dates.buffer_info()[0]
        self.addresses = (at, at + 8, self.data.buffer_info()[0], self.out.buffer_info()[0])


def _on_stack(frame: FrameType) -> bool:
    """Whether ``frame`` runs on this thread (a rare path: a flush inside a flush)."""
    caller: FrameType | None = sys._getframe(1)
    while caller is not None:
        if caller is frame:
            return True
        caller = caller.f_back
    return False


class FlushingState(_state.LoopState):
    """The state of a Cadence loop under an event loop: reading ``handle`` (what every call of
    Cadence's own API does before going into C) hands the event loop's pending starts and
    cancels to C first. The event loop itself reads the plain value, :func:`raw`.

    It holds the event loop's :class:`Pending` (and its table of armed timers, which C's
    callbacks read: ``LoopState.armed``) weakly: a finalizer keeps the state, and the pending
    timers hold their event loop, which must stay garbage when it is left open
    (``_asyncio_armed``)."""

    pending: weakref.ref[Pending]

    @property  # a data descriptor: it wins over the instance's own value
    def handle(self) -> int:
        value: int = self.__dict__["handle"]
        pending = self.pending()
        if value and pending is not None and (pending.timers or pending.cancels):
            pending.flush(value, "EventLoop.call_at")
        return value

    @handle.setter
    def handle(self, value: int) -> None:
        self.__dict__["handle"] = value


def raw(state: _state.LoopState) -> int:
    """The loop's C handle, without a flush (0 once the loop is closed)."""
    return int(state.__dict__["handle"])


def install(state: _state.LoopState, pending: Pending, where: str) -> None:
    """Makes every use of ``state``'s loop flush ``pending`` first (see :class:`FlushingState`),
    and C's calls for its timers find its table of armed ones.

    Raises:
        LoopBusy: the loop is under another event loop already, or has a thread of its own (it
            could never run under this one, and the starts made meanwhile would go to that
            thread's runs).
    """
    if state.thread:
        raise LoopBusy(
            context=where,
            detail="loop must not run on a thread of its own, got one that does "
            "(stop_thread() first, or make the event loop its own loop)",
        )
    if isinstance(state, FlushingState) and state.pending() is not None:
        raise LoopBusy(
            context=where,
            detail="loop must not be under another cadence.asyncio event loop, got one that is "
            "(close that event loop first)",
        )
    state.pending = weakref.ref(pending)  # type: ignore[attr-defined]
    state.armed = weakref.ref(pending.armed)
    state.__class__ = FlushingState


def uninstall(state: _state.LoopState, pending: Pending) -> None:
    """Undoes :func:`install` of ``pending``: the loop is its own again. Also when the collector
    has cleared the state's weak reference (an event loop left open, closed by its
    ``__del__``). The event loop's table goes too: C's calls for a timer of it that C still
    had (one being fired as the event loop closed) find nothing."""
    if isinstance(state, FlushingState) and state.pending() in (pending, None):
        state.__class__ = cast("type[FlushingState]", _state.LoopState)
        del state.pending, state.armed


# A Ctrl-C in a flush is recorded by Cadence's SIGINT handler (while the main thread runs the
# event loop) and raised once the flush is done: see ``_state.GLUE``.
_state.GLUE.update(
    f.__code__ for f in (Pending.flush, Pending._cancel, Pending._start, Pending._land)
)
