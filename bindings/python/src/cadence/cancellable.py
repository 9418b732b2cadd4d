"""Things that can be cancelled: subscriptions, connections and scheduled timers (countdowns and
pollers have modules of their own)."""

from __future__ import annotations

import contextlib
import ctypes
from typing import TYPE_CHECKING, Callable, TypeVar, cast

from . import _args, _lib, _registry
from ._owned import Owned
from .errors import EALREADY, CadenceError, check

if TYPE_CHECKING:
    from ._registry import LoopState
    from .loop import Loop

__all__ = ["Cancellable", "Connection", "ScheduledTimer", "Subscription"]

_C = TypeVar("_C", bound="Cancellable")
_cancel = _lib.lib.cadence_cancel
_unref = _lib.lib.cadence_timer_unref
_ref = _lib.lib.cadence_timer_ref


def _release(state: LoopState, handle: int) -> None:
    """Gives a C handle back, unless its loop is closed (which released it)."""
    if not state.closed:
        _lib.lib.cadence_cancellable_release(handle)


class Cancellable(Owned):
    """Base class of :class:`Subscription`, :class:`Connection`, :class:`ScheduledTimer`,
    :class:`~cadence.Countdown` and :class:`~cadence.Poller`, like Combine's ``Cancellable``.

    Use as a context manager to cancel on exit::

        with publisher.sink(callback):
            loop.run(1.0)

    Threads: every method may be called from any thread, and from inside callbacks (including the
    callback being cancelled).
    """

    __slots__ = ("_description", "_handle", "_key")

    def __init__(
        self,
        loop: Loop,
        state: LoopState,
        handle: int,
        key: int | None,
        description: object,
    ) -> None:
        # Owned.__init__, inline: Loop.schedule makes one of these per call.
        self._loop = loop
        self._state = state
        #: The C handle's id; 0 once released.
        self._handle = handle
        self._key = key
        #: A string, or what a subclass's ``_describe`` makes one from (so that making the object
        #: formats nothing).
        self._description = description

    def _released(self) -> bool:
        return not self._handle

    def _release(self) -> None:
        handle, self._handle = self._handle, 0
        if handle:
            self._release_handle(handle)

    def _release_handle(self, handle: int) -> None:
        """Gives the C handle back (once; a second release would answer EBADF, ignored)."""
        _release(self._state, handle)

    def __del__(self) -> None:
        # Releases the C handle of a collected object; at interpreter exit the module may be
        # half torn down, and the process is ending anyway.
        with contextlib.suppress(Exception):
            self._release()

    def cancel(self) -> bool:
        """Cancels, and says whether this call did it.

        Once it returns, no new callback for this object starts. Called from another thread while
        one of its callbacks runs on the loop's thread, it waits for that callback to return (as
        ``cadence_cancel`` does), so do not call it while holding a lock that the callback takes,
        nor let callbacks on two loops' threads cancel each other's running timers (each would
        wait for the other). From inside a callback, its own included, it returns at once.
        Cancelling again is harmless.

        Returns:
            True if this call cancelled; False if it was already cancelled (or, for a one-shot
            scheduled timer, had already fired; for a countdown, had already finished).
            Decided atomically by the engine (``cadence_cancel``): of threads cancelling the same
            object at once, exactly one gets True, as Swift's ``cancel()`` returns true once.

        Raises:
            BadHandle: the object or its loop is closed.
        """
        state = self._state
        if state.closed or not self._handle:
            self._require_open(f"{type(self).__name__}.cancel")
        code = int(_cancel(self._handle))
        if self._key is not None:
            _registry.unregister(state, self._key)
        if code == EALREADY:
            return False
        if code < 0:
            check(code, f"{type(self).__name__}.cancel")
        return True

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` has been called (for a connection: on any connection of the
        publisher; for a one-shot scheduled timer: also True once it has fired; for a countdown:
        also True once it has finished).

        Raises:
            BadHandle: the object or its loop is closed.
        """
        return self._is_cancelled(f"{type(self).__name__}.cancelled")

    def _is_cancelled(self, what: str) -> bool:
        self._require_open(what)
        out = ctypes.c_int()
        check(int(_lib.lib.cadence_is_cancelled(self._handle, out)), what)
        return bool(out.value)

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Cancels, then closes (nothing if already closed)."""
        if not self.closed:
            self.cancel()
            self.close()

    def _status(self) -> str:
        closed = self._state_word()
        if closed:
            return closed
        try:
            return "cancelled" if self.cancelled else "active"
        except CadenceError:
            return "invalid"

    def __repr__(self) -> str:
        return f"<cadence.{type(self).__name__} {self._status()} {self._describe()}>"

    def _describe(self) -> str:
        return str(self._description)


class _CancelledOnClose(Cancellable):
    """A cancellable that the C layer cancels when its handle is released (a subscription, a
    countdown, a poller), but that the binding keeps going while only its Python object is gone."""

    __slots__ = ()

    def _release_handle(self, handle: int) -> None:
        # Collected while active: it goes on until it is cancelled or its loop closes (its
        # callback is still in the table, and releasing the handle would cancel it).
        assert self._key is not None
        if not _registry.is_registered(self._state, self._key):
            super()._release_handle(handle)

    def cancel(self) -> bool:
        try:
            return super().cancel()
        finally:
            self._ended()

    cancel.__doc__ = Cancellable.cancel.__doc__

    def close(self) -> None:
        """Cancels and releases the handle (``cadence_cancellable_release`` cancels it).
        Closing twice, or after the loop closed, does nothing."""
        if self._key is not None and not self.closed:
            _registry.unregister(self._state, self._key)
        self._release()
        self._ended()

    def _ended(self) -> None:
        """Called after every cancel or close: a subclass ends what waits on it (asyncio awaiters,
        streams)."""


class Subscription(_CancelledOnClose):
    """One subscriber of a timer publisher, returned by ``sink()``.

    Cancelling it stops delivery to this subscriber alone; the timer goes on for the others (on an
    autoconnect publisher, cancelling the last subscriber stops the timer). A subscription stays
    active until it is cancelled or closed, or its loop closes: dropping the Python object does
    *not* cancel it, because the binding keeps its callback. :meth:`close` cancels it.
    """

    __slots__ = ()


class Connection(Cancellable):
    """What :meth:`TimerPublisher.connect` returns: cancel it to stop the timer for good.

    Every connection of one publisher controls the same timer. Like the bare ``Cancellable`` that
    Combine's ``connect()`` returns, closing it or dropping it does *not* stop the timer; only
    :meth:`cancel` (or leaving a ``with`` block, or closing the loop) does.
    """

    __slots__ = ()

    def close(self) -> None:
        """Releases the handle; the timer keeps running. Closing twice does nothing."""
        self._release()


class ScheduledTimer(Cancellable):
    """A callback scheduled by :meth:`Loop.schedule`, once or (with ``interval``) repeating
    (Swift's ``ScheduledTimer``).

    :meth:`cancel` prevents the calls that have not started. Closing or dropping the object does
    *not* cancel the timer (``cadence_cancellable_release`` leaves a scheduled timer armed); the
    callback is kept until a one-shot fires, the timer is cancelled, or the loop closes.
    """

    __slots__ = ()

    def close(self) -> None:
        """Releases the handle; a pending callback still fires. Closing twice does nothing."""
        self._release()

    def _describe(self) -> str:
        # The delay alone in the default mode (no tuple per timer), else (delay, mode); a
        # repeating timer's, formatted. `+ 0.0` shows a delay of -0.0 (accepted: it is zero) as 0.0.
        description = self._description
        if type(description) is float:
            return f"after {description + 0.0!r} s in mode 'default'"
        if type(description) is str:
            return description
        after, mode = cast("tuple[float, str]", description)
        return f"after {after + 0.0!r} s in mode {mode!r}"

    @property
    def pending(self) -> bool:
        """Whether calls are still to come: a one-shot that has neither fired nor been cancelled,
        a repeating timer that has not been cancelled (Foundation's ``isValid``).

        Raises:
            BadHandle: the object or its loop is closed.
        """
        return not self._is_cancelled("ScheduledTimer.pending")

    def reset(self, delay: float) -> None:
        """Moves the timer's next fire date to ``delay`` seconds after a fresh read of the loop's
        clock, without cancelling it: Foundation's ``fireDate`` setter, Go's ``Timer.Reset``,
        Node's ``refresh()``, libuv's ``uv_timer_again`` (C's ``cadence_timer_reset``). A repeating
        timer starts a new grid there (fires at the new date, then every interval after it); a
        debounce is a one-shot reset on every event.

        Ties: the reset timer fires after the timers already due at its new fire date, as if
        scheduled now (as libuv and Node order a re-armed timer); reset during a pass, it waits
        for a later pass.

        Threads: any thread, and callbacks (its own included). The loop's lock decides against a
        fire on another thread: a reset that returns before the callback starts wins (the old
        fire date never fires); a one-shot whose callback has started has ended, and its reset
        raises :class:`~cadence.errors.AlreadyCancelled`; a repeating timer whose callback is
        running moves its next fire date.

        Args:
            delay: seconds from now, >= 0 and finite (0 fires on the next pass).

        Raises:
            TypeError: ``delay`` is not a number.
            InvalidArgument: ``delay`` is NaN, infinite or negative.
            AlreadyCancelled: the timer was cancelled, or is a one-shot that has fired (or whose
                callback has started).
            BadHandle: the object or its loop is closed.
            When it raises, the timer is left as it was.
        """
        where = "ScheduledTimer.reset"
        after = _args.seconds(delay, where, "delay")
        self._require_open(where)
        check(int(_lib.lib.cadence_timer_reset(self._handle, after)), where)

    @property
    def fire_date(self) -> float | None:
        """The timer's next fire date, in seconds on the scale of :attr:`Tick.fire_date
        <cadence.Tick.fire_date>` and :meth:`Loop.now`: Foundation's ``fireDate``, asyncio's
        ``TimerHandle.when()`` (C's ``cadence_timer_fire_date``). During a repeating timer's
        callback it is already the next grid point. None once the timer is not :attr:`pending`.

        Raises:
            BadHandle: the object or its loop is closed.
        """
        return self._schedule(_lib.lib.cadence_timer_fire_date, "ScheduledTimer.fire_date")

    @property
    def interval(self) -> float | None:
        """Seconds between fire dates, 0.0 for a one-shot (Foundation's ``timeInterval``); None
        once the timer is not :attr:`pending`.

        Raises:
            BadHandle: the object or its loop is closed.
        """
        return self._schedule(_lib.lib.cadence_timer_interval, "ScheduledTimer.interval")

    @property
    def tolerance(self) -> float | None:
        """Seconds of allowed lateness the timer was scheduled with (Foundation's ``tolerance``);
        None once the timer is not :attr:`pending`.

        Raises:
            BadHandle: the object or its loop is closed.
        """
        return self._schedule(_lib.lib.cadence_timer_tolerance, "ScheduledTimer.tolerance")

    def _schedule(self, getter: Callable[..., int], what: str) -> float | None:
        self._require_open(what)
        out = ctypes.c_double()
        code = int(getter(self._handle, ctypes.byref(out)))
        if code == EALREADY:
            return None
        check(code, what)
        return out.value

    # ---- Keeping a run until idle going (libuv's uv_ref / uv_unref) ----

    def unref(self) -> None:
        """Lets :meth:`Loop.run_until_idle` return while this timer is armed (libuv's
        ``uv_unref``, Node's ``timeout.unref()``). The timer still fires as usual while the loop
        runs; a repeating one stays unreferenced on every tick. Callable from any thread;
        calling it twice, or on a timer that has ended (cancelled, or a one-shot that has
        fired), does nothing.

        Raises:
            BadHandle: the object or its loop is closed.
        """
        self._reference(_unref, "ScheduledTimer.unref")

    def ref(self) -> None:
        """Makes this timer keep :meth:`Loop.run_until_idle` going again while it is armed, as
        it did when it was scheduled (libuv's ``uv_ref``, Node's ``timeout.ref()``). Does nothing
        on a timer that has ended.

        Raises:
            BadHandle: the object or its loop is closed.
        """
        self._reference(_ref, "ScheduledTimer.ref")

    @property
    def has_ref(self) -> bool:
        """Whether the timer is armed and referenced, so that it keeps a run until idle in one of
        its modes going (libuv's ``uv_has_ref``, Node's ``timeout.hasRef()``); False once it has
        ended.

        Raises:
            BadHandle: the object or its loop is closed.
        """
        where = "ScheduledTimer.has_ref"
        self._require_open(where)
        out = ctypes.c_int()
        check(int(_lib.lib.cadence_timer_has_ref(self._handle, out)), where)
        return bool(out.value)

    def _reference(self, function: Callable[[int], int], where: str) -> None:
        self._require_open(where)
        check(int(function(self._handle)), where)

    def _status(self) -> str:
        closed = self._state_word()
        if closed:
            return closed
        try:
            return "done" if self.cancelled else "pending"
        except CadenceError:
            return "invalid"
