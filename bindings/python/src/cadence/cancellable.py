"""Handles to things that can be cancelled: subscriptions, connections, scheduled timers (the
base of countdowns and pollers too), and the one lifetime rule they share.

Lifetime (the same contract as C's and Swift's):

- :meth:`~Cancellable.cancel` stops it and says whether this call did (one engine step);
- :meth:`~Cancellable.close`, or leaving a ``with`` block, cancels it, then gives the handle up;
- an object that becomes unreachable and is collected gives its handle up: a one-shot scheduled
  timer still fires (fire-and-forget, as asyncio's ``call_later``); anything else stops, and if
  that stopped work still going, a :class:`ResourceWarning` says so (as asyncio warns for a
  pending task destroyed), with where the object was made when :mod:`tracemalloc` traces;
- :meth:`~Cancellable.detach` says "keep it going without me": giving the handle up afterwards
  stops nothing (``close()`` and ``cancel()`` still do).

A callback that refers to its own handle keeps the handle reachable (C holds the callback), so
such a timer runs until cancelled: pass ``weak=True`` for a bound method whose object owns it.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
import warnings
from typing import TYPE_CHECKING, Any, TypeVar

from . import _cancels, _checks, _lib, _state, _table
from ._unique import Unique
from .errors import EALREADY, EBADF, check, error_for

if TYPE_CHECKING:
    from .loop import Loop

__all__ = ["Cancellable", "Connection", "ScheduledTimer", "Subscription"]

_C = TypeVar("_C", bound="Cancellable")
_lib_ = _lib.lib
_steal = _lib_.cadence_cancel_steal
# Keeps the GIL (cheaper): only while no other thread runs a loop's callbacks, which is the one
# thing a timer's cancel waits for (see ScheduledTimer.cancel); without a GIL, never (_lib.GIL).
_held = ctypes.PyDLL(_lib.path).cadence_cancel_steal if _lib.GIL else _steal
_held.restype, _held.argtypes = _lib.PROTOTYPES["cadence_cancel_steal"]
_runs, _drop, _end = _state.RUNS, _table.drop, _state.end
_pending, _flush, _settle, _slots = _cancels.PENDING, _cancels.flush, _cancels.settle, _table.slots
_append = _pending.append
_in_flight = _cancels.IN_FLIGHT
_ident, _DEFER = threading.get_ident, _lib.GIL  # without a GIL nothing is deferred (_cancels)
_LET_GO, _ENDED, _disown = _cancels.LET_GO, _table.ENDED, _table.disown
_release = _lib_.cadence_cancellable_release
_give_up = _lib_.cadence_cancellable_release_stopping


def cancel_result(code: int, handle: object, what: str) -> bool:
    """True for 0, False for EALREADY; raises for anything else, naming ``Type.what`` (and, for
    a handle of a closed loop, saying so)."""
    if code in (0, EALREADY):
        return not code
    raise error_for(code, f"{type(handle).__name__}.{what}", getattr(handle, "_loop", None))


class Cancellable(Unique):
    """What :class:`Subscription`, :class:`Connection`, :class:`ScheduledTimer`,
    :class:`~cadence.Countdown` and :class:`~cadence.Poller` share, like Combine's
    ``Cancellable``; the lifetime rules are in this module's notes. Use it as a context manager
    to close it on exit::

        with publisher.subscribe(callback):
            loop.run(1.0)

    Threads: every method may be called from any thread, and from inside callbacks (including the
    callback being cancelled).
    """

    __slots__ = ()
    _handle: int
    _description = ""  # what made it, for the repr (Owned's are given theirs)

    def cancel(self) -> bool:
        """Cancels, and says whether this call did it.

        Once it returns, no new callback for this object starts. Called from another thread while
        one of its callbacks runs on the loop's thread, it waits for that callback to return (as
        ``cadence_cancel`` does), so do not call it while holding a lock that the callback takes,
        nor let callbacks on two loops' threads cancel each other's running timers. From inside a
        callback, its own included, it returns at once.

        Returns:
            True if this call cancelled; False if it was already cancelled (or, for a one-shot,
            had fired; for a countdown, had finished). Decided atomically by the engine: of
            threads cancelling the same object at once, exactly one gets True.

        Raises:
            BadHandle: the object was closed, or its loop.
        """
        # The one cancel protocol: C hands the userdata's key back, and its end comes here (the
        # GIL is kept as in ScheduledTimer.cancel, whose userdata is never an Ending).
        code = (_held if not _runs else _steal)(self._handle)
        if code > 0:
            _end(code)
            return True
        return cancel_result(code, self, "cancel")

    def detach(self) -> None:
        """Keeps it going without this handle: afterwards, giving the handle up (collection)
        stops nothing; :meth:`cancel` and :meth:`close` still stop it (C's
        ``cadence_cancellable_detach``, Swift's ``detach()``). Detaching twice does nothing.

        Raises:
            BadHandle: the object was closed, or its loop.
        """
        self._check(_lib_.cadence_cancellable_detach(self._handle), "detach")

    @property
    def cancelled(self) -> bool:
        """Whether it was cancelled (a connection: any connection of its publisher; a one-shot:
        also once it has fired; a countdown: also once it has finished).

        Raises:
            BadHandle: the object was closed, or its loop.
        """
        return self._is_cancelled("cancelled")

    def _is_cancelled(self, what: str) -> bool:
        _flush()
        self._check(_lib_.cadence_is_cancelled(self._handle, out := ctypes.c_int()), what)
        return bool(out.value)

    def _get(self, function: Any, what: str) -> float:
        """The double that ``function(handle, out)``, a C getter, writes (``_check`` on error)."""
        self._check(function(self._handle, out := ctypes.c_double()), what)
        return out.value

    def _check(self, code: int, what: str) -> None:
        """:func:`~cadence.errors.check` for ``Type.what``, telling it this handle's loop."""
        check(code, f"{type(self).__name__}.{what}", getattr(self, "_loop", None))

    @property
    def closed(self) -> bool:
        """Whether its handle was given up: :meth:`close` (or the loop's) was called."""
        return bool(_lib_.cadence_is_cancelled(self._handle, ctypes.c_int()) == EBADF)

    def close(self) -> None:
        """Cancels, then gives the handle up (as a file's close); also on a detached handle.
        Closing twice, or after the loop closed, does nothing."""
        _flush()
        if (key := _steal(self._handle)) > 0:
            _end(key)
        _release(self._handle)

    def __del__(self) -> None:
        # Collected: gives the handle up (a second release, after close, answers EBADF), and
        # warns when that stopped work still going (C says so: 1).
        stopped = 0
        with contextlib.suppress(Exception):  # at interpreter exit the module may be gone
            if _pending:  # a cancel recorded for this timer goes first: it must not fire
                _flush()
            stopped = _give_up(self._handle)
        if stopped == 1:  # outside: a filter may make the warning an error, for the unraisable hook
            dropped(self)

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Closes it (cancel, then give up)."""
        self.close()

    def _status(self) -> str:
        code = _lib_.cadence_is_cancelled(self._handle, out := ctypes.c_int())
        return "closed" if code == EBADF else "cancelled" if out.value else "active"

    def __repr__(self) -> str:
        words = (f"<cadence.{type(self).__name__}", self._status(), self._description)
        return " ".join(filter(None, words)) + ">"


def dropped(handle: Cancellable) -> None:
    """Warns that ``handle`` was collected while its work was going, which stopped it; the
    warning's source is the handle, so that :mod:`tracemalloc` shows where it was made."""
    repeating = isinstance(handle, ScheduledTimer)  # a one-shot given up still fires: no warning
    kind = type(handle).__name__ + (" (repeating)" if repeating else "")
    what = " ".join(filter(None, (f"cadence.{kind}", handle._description)))
    warnings.warn(
        f"{what} was still active when it was collected, which stopped it: keep a reference for "
        "as long as it should run, close() it when done, or detach() it to keep it going",
        ResourceWarning,
        stacklevel=2,
        source=handle,
    )


class Owned(Cancellable):
    """A cancellable that knows its loop and what made it."""

    __slots__ = ("_description", "_handle", "_loop")

    def __init__(self, handle: int, loop: Loop, description: str = "") -> None:
        self._handle, self._loop, self._description = handle, loop, description

    @property
    def loop(self) -> Loop:
        """The loop this object belongs to."""
        return self._loop

    def close(self) -> None:
        """Cancels, then gives the handle up, as :meth:`Cancellable.close`, and forgets it: the
        object holds 0, a handle the engine never gives out (collecting it gives nothing up)."""
        super().close()
        self._handle = 0

    def _status(self) -> str:
        return "closed (loop closed)" if not self._loop._state.handle else super()._status()


class Subscription(Owned):
    """One subscriber of a timer publisher, returned by ``subscribe()``.

    Cancelling it stops delivery to this subscriber alone; on an autoconnect publisher the last
    one cancelled (or given up) stops the timer. Collected, it is cancelled (detach it to keep
    it); :meth:`close` cancels it.
    """

    __slots__ = ()


class Connection(Owned):
    """What :meth:`TimerPublisher.connect` returns: cancel it to stop the timer for good.

    Every ``connect()`` of one publisher returns a handle to the same connection; the timer
    stops when one is cancelled, or when the last handle is given up (collected or closed),
    unless it was detached.
    """

    __slots__ = ()


class ScheduledTimer(Cancellable):
    """A callback scheduled by :meth:`Loop.schedule`, once or (with ``interval``) repeating
    (Swift's ``ScheduledTimer``).

    A small object that holds only its C handle (so a million pending timers cost a million
    small objects): two timers are equal only if they are the same object, and hash by identity,
    as asyncio's ``TimerHandle``. :meth:`cancel` prevents the calls that have not started.
    Collected, a one-shot still fires (fire-and-forget) and a repeating timer stops, unless
    detached; :meth:`close` cancels either.
    """

    # No __weakref__ and no loop: each would cost every pending timer 8 bytes more. _key: the
    # table key of its callback, which it owns (_table.OWNER; 0 for a weak timer), so that its
    # cancel needs no C call; it keeps the key's int alive, 32 bytes, and the owner mark takes 8.
    __slots__ = ("_handle", "_key")

    def __init__(self, handle: int) -> None:
        self._handle, self._key = handle, 0

    def __del__(self) -> None:
        # Gives the handle up (Cancellable's), then the key it owns (_table.OWNER), which its
        # registration's end freed only if this timer was already gone. A recorded cancel goes
        # to C first, also one that a flush has in flight (_cancels.settle). Tested here, not
        # in settle: a cancel that reached C long ago (the common case) then costs no call and
        # no context manager.
        if (key := self._key) and _slots[key] is _LET_GO and (_pending or _in_flight):
            with contextlib.suppress(Exception):  # at interpreter exit the module may be gone
                _settle(self._handle)
        super().__del__()
        if key := self._key:
            with contextlib.suppress(Exception):  # at interpreter exit the module may be gone
                _disown(key)

    def cancel(self) -> bool:
        """Cancels, and says whether this call did it (see :meth:`Cancellable.cancel`): False
        once a one-shot has fired or its callback has started.

        Made where no other thread can be calling a loop's callbacks (none runs a loop, or this
        thread is the one that does), the cancel of a timer known to be pending is recorded and
        handed to C with the others before anything could fire it or read it (see
        ``cadence._cancels``): for every observer it has happened when this returns.

        Raises:
            BadHandle: the timer was closed, or its loop.
        """
        handle, key = self._handle, self._key
        # Recorded (_cancels) while its slot holds its callback (its key is its own while it
        # lives: _table.OWNER), when no other thread can call callbacks. The ident is asked
        # first: from the checks to the mark nothing is a call or a backward jump, where the GIL
        # could pass to a thread that fires it, starts a run or cancels it. The mark lets no
        # finalizer run (`callback` still holds the callback), and the record that follows is a
        # call, which can hand the GIL over only once it has returned: marked and recorded
        # together. (An append costs about 150 ns less than `+= (handle,)` at 10^5 timers.)
        me = _ident() if _runs else 0
        if key and _DEFER:  # key 0: a weak timer, whose key it does not own
            callback = _slots[key]
            if callback is _LET_GO:  # recorded already (True then): False, BadHandle once
                self._let_go("cancel")  # closed; never C's cancel, which may be in flight
                return False
            if callback is not None and callback is not _ENDED and (not _runs or _runs == [me]):
                _slots[key] = _LET_GO  # the callback is let go at once; the key stays held
                _append(handle)
                return True
        # C waits only for the timer's callback running on another thread, which needs the GIL.
        # RUNS is empty while no thread can be calling callbacks, and no other thread runs from
        # the read of RUNS to the end of C's call: nothing in between is a call or a backward
        # jump, where the interpreter hands the GIL over, and PyDLL keeps it during the call.
        # C hands the timer's userdata, its key, back instead of calling the release function.
        code = (_held if not _runs else _steal)(self._handle)
        if code > 0:
            if not key:
                _drop(code)
                return True
            # Its own key (code): the runner may have recorded a cancel of it while C had the GIL
            # released, seeing the callback still there; that cancel said True. Read and written
            # without a call between (_table.drop's write for an owned key), so one of them does.
            if _slots[key] is _LET_GO:
                return False
            _slots[key] = _ENDED
            return True
        return True if code == 0 else cancel_result(code, self, "cancel")

    def _let_go(self, what: str) -> bool:
        """Whether Python let this timer go (a recorded cancel, ``_cancels``): then it has ended
        for every reader, which answers so without asking C, as C may not have the cancel yet (a
        flush on another thread may hold it). Raises BadHandle, naming ``what``, if closed."""
        if not (key := self._key) or _slots[key] is not _LET_GO:
            return False
        self._check(_lib_.cadence_is_cancelled(self._handle, ctypes.c_int()), what)
        return True

    def _is_cancelled(self, what: str) -> bool:
        if (key := self._key) and _slots[key] is _LET_GO:  # tested inline: pending is hot
            return self._let_go(what)
        _flush()
        self._check(_lib_.cadence_is_cancelled(self._handle, out := ctypes.c_int()), what)
        return bool(out.value)

    @property
    def pending(self) -> bool:
        """Whether calls are still to come: a one-shot that has neither fired nor been cancelled,
        a repeating timer that has not been cancelled (Foundation's ``isValid``).

        Raises:
            BadHandle: the timer was closed, or its loop.
        """
        return not self._is_cancelled("pending")

    def reset(self, delay: float) -> None:
        """Moves the timer's next fire date to ``delay`` seconds after a fresh read of the loop's
        clock, without cancelling it: Foundation's ``fireDate`` setter, Go's ``Timer.Reset``,
        Node's ``refresh()``, libuv's ``uv_timer_again`` (C's ``cadence_timer_reset``). A
        repeating timer starts a new grid there; a debounce is a one-shot reset on every event.
        The reset timer fires after the timers already due at its new date, as if scheduled now.

        Threads: any thread, and callbacks. The loop's lock decides against a fire on another
        thread: a one-shot whose callback has started has ended, and its reset raises
        :class:`~cadence.errors.AlreadyCancelled`.

        Args:
            delay: seconds from now, >= 0 and finite (0 fires on the next pass).

        Raises:
            TypeError: ``delay`` is not a number.
            InvalidArgument: ``delay`` is NaN, infinite or negative.
            AlreadyCancelled: cancelled, or a one-shot that has fired (or started).
            BadHandle: the timer was closed, or its loop. When it raises, nothing changed.
        """
        where = "ScheduledTimer.reset"
        value = _checks.seconds(delay, where, "delay")
        if self._let_go("reset"):
            check(EALREADY, where)
        _flush()
        check(_lib_.cadence_timer_reset(self._handle, value), where)

    def _read(self, name: str) -> float | None:
        if self._let_go(name):
            return None
        _flush()
        code = getattr(_lib_, f"cadence_timer_{name}")(self._handle, out := ctypes.c_double())
        if code == EALREADY:
            return None
        check(code, f"ScheduledTimer.{name}")
        return out.value

    @property
    def fire_date(self) -> float | None:
        """The next fire date, in seconds on the scale of ``Tick.fire_date`` and
        :meth:`Loop.now` (Foundation's ``fireDate``, asyncio's ``TimerHandle.when()``); during a
        repeating timer's callback already the next grid point. None once not :attr:`pending`.

        Raises:
            BadHandle: the timer was closed, or its loop.
        """
        return self._read("fire_date")

    @property
    def interval(self) -> float | None:
        """Seconds between fire dates, 0.0 for a one-shot (Foundation's ``timeInterval``); None
        once not :attr:`pending`.

        Raises:
            BadHandle: the timer was closed, or its loop.
        """
        return self._read("interval")

    @property
    def tolerance(self) -> float | None:
        """Seconds of allowed lateness (Foundation's ``tolerance``); None once not
        :attr:`pending`.

        Raises:
            BadHandle: the timer was closed, or its loop.
        """
        return self._read("tolerance")

    def unref(self) -> None:
        """Lets :meth:`Loop.run_until_idle` return while this timer is armed (libuv's
        ``uv_unref``, Node's ``timeout.unref()``); it still fires while the loop runs. Twice, or
        on an ended timer, it does nothing.

        Raises:
            BadHandle: the timer was closed, or its loop.
        """
        if not self._let_go("unref"):
            _flush()
            check(_lib_.cadence_timer_unref(self._handle), "ScheduledTimer.unref")

    def ref(self) -> None:
        """Makes this timer keep :meth:`Loop.run_until_idle` going again while armed (libuv's
        ``uv_ref``); on an ended timer it does nothing.

        Raises:
            BadHandle: the timer was closed, or its loop.
        """
        if not self._let_go("ref"):
            _flush()
            check(_lib_.cadence_timer_ref(self._handle), "ScheduledTimer.ref")

    @property
    def has_ref(self) -> bool:
        """Whether the timer is armed and referenced (libuv's ``uv_has_ref``); False once ended.

        Raises:
            BadHandle: the timer was closed, or its loop.
        """
        if self._let_go("has_ref"):
            return False
        _flush()
        code = _lib_.cadence_timer_has_ref(self._handle, out := ctypes.c_int())
        check(code, "ScheduledTimer.has_ref")
        return bool(out.value)

    def _status(self) -> str:
        if self.closed:
            return "closed"
        schedule = (self.fire_date, self.interval, self.tolerance)
        if schedule[0] is None:
            return "done"
        return "pending fire_date={!r} interval={!r} tolerance={!r}".format(*schedule)
