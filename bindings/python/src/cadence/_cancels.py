"""Cancels handed to C many at a time (``cadence_cancel_steal_batch``): the deferred cancels of
Cadence's own scheduled timers, and (through :func:`steal_all`) those of :mod:`cadence.asyncio`.

A ctypes call costs as much as the rest of a cancel, so :meth:`ScheduledTimer.cancel
<cadence.ScheduledTimer.cancel>` of a timer that Python knows to be pending records it and
returns True at once, and :func:`flush` then cancels every recorded timer in one C call. Python
knows a timer is pending while the slot of its key still holds its callback: a timer's key is its
own while the timer lives (``_table.OWNER``), and a call, a cancel, a release or its loop's close
empties the slot first. Recording puts :data:`LET_GO` in the slot (the callback is let go at
once, as C's cancel does; the key stays the timer's, as an ended one's does): a second cancel
then returns False, and a dispatcher that C hands the timer to before the flush skips it, so no
call starts after ``cancel()`` returned, whenever the flush comes. The flush leaves the slots as
they are: LET_GO then says "ended" as ``_table.ENDED`` does (C stopped the timer, or fired it and
its dispatcher skipped it, or its loop closed), and the key comes back when the timer is
collected (``_table.disown``), after a flush (``settle``).

A cancel is recorded only when no thread can be calling a loop's callbacks (``_state.RUNS`` is
empty) or the caller is the one thread that can (a callback, or a run's own thread between
passes); from any other thread it goes to C at once, as it must wait for a running callback.
The recorded cancels go to C before C could act on them or anyone read them:

- before every pass or run (``LoopState.claim``, ``run_pass``, a loop's own thread starting, an
  attachment's or a ``cadence.asyncio`` loop's pass): also every hand-over to another thread;
- after every callback called from C, and at the end of every batch of fires (so that
  ``run_until_idle`` and a loop's sleep see them before C's next step);
- before every read through C (the armed count, ``alive()``, ``timeout()``, a timer's
  ``pending``, ``cancelled``, ``fire_date``, ``has_ref``), ``reset()``, ``close()`` of a timer or
  its loop, and a handle given up by collection;
- before the callback table grows (``_table.BEFORE_GROWTH``): the recorded cancels hold keys,
  and their timers in C, only while the table has free keys, so a program that never runs a
  pass holds few.

Without a GIL (``_lib.GIL``) nothing is recorded.
"""

from __future__ import annotations

import threading
from array import array

from . import _lib, _table

#: The handles of the recorded timers. Appended to without a call (``+=``) and emptied whole
#: (:func:`flush`): neither is a point where the GIL passes to another thread.
PENDING: list[int] = []
#: What the table holds at a recorded timer's key instead of its callback.
LET_GO = _table.LET_GO

_batch = _lib.lib.cadence_cancel_steal_batch
#: Held by a flush from taking the records to freeing the keys: a timer given up by collection
#: waits for a flush in flight on another thread that holds its cancel (C would find its handle
#: released, and its key would never come back). Reentrant: a flush may run inside one (a
#: collection in a release function that C calls during the batch).
_flushing = threading.RLock()
#: How many flushes are between taking the records and C's answer (0 or 1: under _flushing),
#: so that a timer given up asks for the lock only when one may hold its cancel.
IN_FLIGHT = [0]


def steal_all(handles: list[int]) -> array[int]:
    """``cadence_cancel_steal_batch`` of ``handles`` (one C call, which may wait for a callback
    running on another thread, the GIL released): for each, the key C handed back (> 0), 0,
    ``CADENCE_EALREADY`` or ``CADENCE_EBADF`` ("ended", also for a closed loop)."""
    count = len(handles)
    ins, out = array("Q", handles), array("q", bytes(8 * count))
    _batch(ins.buffer_info()[0], count, out.buffer_info()[0])
    return out


def flush() -> None:
    """Hands every recorded cancel to C at once; any thread, any time (also from a callback and
    from a collection). What C answers for each needs nothing more: a key it hands back (it
    stopped the timer) is its timer's, whose slot says LET_GO, ended; ``CADENCE_EALREADY`` (C
    fired it meanwhile and its dispatcher skipped it) and ``CADENCE_EBADF`` (its loop closed)
    likewise."""
    if not PENDING:
        return
    with _flushing:
        IN_FLIGHT[0] += 1  # before the records are taken: see settle
        try:
            handles = PENDING[:]
            del PENDING[:]  # taken whole: no other thread runs between the copy and this
            if handles:
                steal_all(handles)
        finally:
            IN_FLIGHT[0] -= 1


def settle() -> None:
    """:func:`flush`, after any flush in flight on another thread: for a timer given up whose
    cancel is recorded, so that C has its cancel before its handle goes. Nothing to wait for
    (the common case: the cancel went to C long ago) costs no lock: a record is in
    :data:`PENDING` until a flush counts itself in :data:`IN_FLIGHT`, and stays counted there
    until C has answered."""
    if PENDING or IN_FLIGHT[0]:
        with _flushing:
            flush()


_table.BEFORE_GROWTH[0] = flush
