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
collected (``_table.disown``), once C has its cancel (``settle``).

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
  its loop, and a handle given up by collection (:func:`settle`: also while another flush has
  the record in flight). A recorded timer's own reads and second cancel ask C nothing: its slot
  says it ended, while another thread's flush may still be handing its cancel to C;
- before the callback table grows (``_table.BEFORE_GROWTH``): the recorded cancels hold keys,
  and their timers in C, only while the table has free keys, so a program that never runs a
  pass holds few.

Without a GIL (``_lib.GIL``) nothing is recorded.
"""

from __future__ import annotations

from array import array

from . import _lib, _table
from ._take import take

#: The handles of the recorded timers, as C takes them (64-bit words: a cancel reads its handle's
#: value while it is in the cache, and a flush copies the words whole, where a list of ints was
#: read again one cold int at a time: about 30 ns less per stop at 10^5 timers). Appended to by a
#: cancel (whose GIL can pass to another thread only once the append has returned) and emptied
#: whole (:func:`flush`).
PENDING: array[int] = array(_lib.WORD)
#: What the table holds at a recorded timer's key instead of its callback.
LET_GO = _table.LET_GO

_batch, _cancel = _lib.lib.cadence_cancel_steal_batch, _lib.lib.cadence_cancel_steal
#: One item per flush between taking its records and C's answer (on any threads), so that a
#: timer given up settles only when one may hold its cancel: an append and a pop, each one step
#: (a count's ``+= 1`` from two threads could lose one). No lock: a flush on another thread
#: may wait in C for a callback running on this one (C's cancel of a repeating timer that
#: cancelled itself there), which must then neither wait for that flush nor be waited for.
IN_FLIGHT: list[bool] = []


def steal_all(handles: array[int], out: array[int]) -> None:
    """``cadence_cancel_steal_batch`` of ``handles`` (64-bit words; one C call, which may wait for
    a callback running on another thread, the GIL released), whose answers go to ``out`` (as
    many signed words): for each, the key C handed back (> 0), 0, ``CADENCE_EALREADY`` or
    ``CADENCE_EBADF`` ("ended", also for a closed loop)."""
    _batch(handles.buffer_info()[0], len(handles), out.buffer_info()[0])


def flush() -> None:
    """Hands every recorded cancel to C at once; any thread, any time (also from a callback and
    from a collection), never waiting for another flush. What C answers for each needs nothing
    more: a key it hands back (it stopped the timer) is its timer's, whose slot says LET_GO,
    ended; ``CADENCE_EALREADY`` (C fired it meanwhile and its dispatcher skipped it, or another
    cancel of it came first) and ``CADENCE_EBADF`` (its handle or loop closed) likewise.

    The records are taken whole, in one step no other thread's flush can split (``_take``); an
    interrupt (Ctrl-C) before C has them puts them back, to go at the next flush (a cancel that
    reached C is then made twice, and C answers the second "ended")."""
    if not PENDING:
        return
    IN_FLIGHT.append(True)  # before the records are taken: see settle
    handles: array[int] = array(_lib.WORD)
    try:
        take(PENDING, handles)
        if handles:
            steal_all(handles, array("q", bytes(8 * len(handles))))
    except BaseException:
        PENDING.extend(handles)
        raise
    finally:
        IN_FLIGHT.pop()


def settle(handle: int) -> None:
    """Makes sure C has the cancel of ``handle``, a recorded timer being given up, before its
    handle goes: :func:`flush`, then, while a flush has records out of :data:`PENDING` but not yet
    in C (on another thread, or further out on this one, which a collection interrupted), C's
    cancel of this timer (``cadence_cancel_steal``; that flush then finds it ended, or its handle
    given up, which C never hands out again). Nothing to do (the common case: the cancel went to
    C long ago) costs no call: a record is in :data:`PENDING` until a flush counts itself in
    :data:`IN_FLIGHT`, and stays counted there until C has answered."""
    if PENDING:
        flush()
    if IN_FLIGHT:
        _cancel(handle)  # the key C may hand back is the timer's, LET_GO: freed when it goes


_table.BEFORE_GROWTH[0] = flush
