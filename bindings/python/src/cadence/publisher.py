"""Timer publishers: Swift's ``TimerPublisher(every:tolerance:on:in:)`` and ``autoconnect()``."""

from __future__ import annotations

import enum
import weakref
from typing import TYPE_CHECKING, Callable, NoReturn, TypeVar

from . import _args, _lib, _registry
from ._async import AsyncStream, Channel, on_loop_close
from ._owned import Owned
from .cancellable import Connection, Subscription
from .errors import NotSupported, check

if TYPE_CHECKING:
    from ._registry import LoopState
    from .loop import Loop
    from .tick import Tick

__all__ = ["AutoconnectTimerPublisher", "MissedTickPolicy", "TimerPublisher"]

_P = TypeVar("_P", bound="_Publisher")
_T = TypeVar("_T")


class MissedTickPolicy(enum.Enum):
    """What a repeating timer does when the loop gets to it after one or more of its fire dates
    have passed (a blocked thread, a slow callback, a mode that was not running); Swift's
    ``MissedTickPolicy``, C's ``cadence_missed_ticks``, after tokio's ``MissedTickBehavior``.
    """

    #: Fire once, reporting the latest grid point passed and how many were skipped
    #: (``Tick.skipped``); the grid goes on from there. Apple's ``Timer``, and the default.
    SKIP = 0
    #: Fire once for every missed grid point, back to back (one per loop pass), each with its
    #: own fire date, then go on with the grid.
    BURST = 1
    #: Fire once, reporting the missed fire date, and restart the grid one interval after the
    #: late fire: the schedule shifts by the lateness, however small (tokio's ``Delay``). A fire
    #: is late when it comes after its tolerance window (fire date + tolerance) and more than
    #: 5 ms after its fire date (half the interval, for intervals under 10 ms), or an interval or
    #: more after it; any other fire keeps the grid. A 50 ms timer whose loop is blocked until
    #: 70 ms fires at 70, 120, 170 ms.
    DELAY = 2


def missed_tick_policy(value: object, where: str) -> MissedTickPolicy:
    """``value`` if it is a :class:`MissedTickPolicy`; TypeError otherwise."""
    if not isinstance(value, MissedTickPolicy):
        raise TypeError(
            f"{where}: missed_ticks must be a cadence.MissedTickPolicy, not {type(value).__name__}"
        )
    return value


def _fire_date(tick: Tick) -> float:
    return tick.fire_date


def _same_tick(tick: Tick) -> Tick:
    return tick


def _release(state: LoopState, handle_id: int) -> None:
    if not state.closed:
        _lib.lib.cadence_publisher_release(handle_id)


class _Publisher(Owned):
    """What both kinds of timer publisher share: settings, ``sink``, ``close``."""

    def __init__(
        self,
        loop: Loop,
        state: LoopState,
        handle: int,
        interval: float,
        tolerance: float,
        mode: str,
        missed_ticks: MissedTickPolicy,
    ) -> None:
        super().__init__(loop, state)
        self._handle = handle
        self._interval = interval
        self._tolerance = tolerance
        self._mode = mode
        self._missed_ticks = missed_ticks
        self._finalizer = weakref.finalize(self, _release, state, handle)

    def _released(self) -> bool:
        return not self._finalizer.alive

    def _release(self) -> None:
        self._finalizer()

    @property
    def interval(self) -> float:
        """Seconds between fire dates."""
        return self._interval

    @property
    def tolerance(self) -> float:
        """Seconds a fire may come after its fire date (never before)."""
        return self._tolerance

    @property
    def mode(self) -> str:
        """The run loop mode the timer is added to."""
        return self._mode

    @property
    def missed_ticks(self) -> MissedTickPolicy:
        """What the timer does about fire dates it missed (Swift's ``missedTicks``); default
        :attr:`MissedTickPolicy.SKIP`.

        Setting it applies to the timers started from then on (by the next :meth:`connect`, or
        an autoconnect publisher's next first subscriber); a running timer keeps the policy it
        started with. :meth:`TimerPublisher.autoconnect` copies it.

        Raises:
            TypeError: (setting) the value is not a :class:`MissedTickPolicy`.
            BadHandle: (setting) the publisher or its loop is closed.
        """
        return self._missed_ticks

    @missed_ticks.setter
    def missed_ticks(self, policy: MissedTickPolicy) -> None:
        where = f"{type(self).__name__}.missed_ticks"
        missed_tick_policy(policy, where)
        self._require_open(where)
        code = int(_lib.lib.cadence_publisher_set_missed_ticks(self._handle, policy.value))
        check(code, where)
        self._missed_ticks = policy

    def sink(self, callback: Callable[[Tick], object]) -> Subscription:
        """Subscribes ``callback`` to the timer's ticks.

        ``callback(tick)`` receives a :class:`~cadence.Tick` (``fire_date`` in seconds since the
        epoch, ``skipped`` grid points) on the thread running the loop. Every subscriber of one
        timer receives the same fire dates. An exception raised by the callback stops the loop and
        is re-raised from the :meth:`Loop.run` call that was running it.

        Subscribing does not connect a :class:`TimerPublisher`; it starts an
        :class:`AutoconnectTimerPublisher`'s timer if this is the first subscriber.

        Returns:
            A :class:`~cadence.Subscription`, active until cancelled (dropping it does not cancel
            it); use it as a context manager to cancel on exit.

        Raises:
            TypeError: ``callback`` is not callable.
            BadHandle: the publisher or its loop is closed.
        """
        where = f"{type(self).__name__}.sink"
        _args.callback(callback, where)
        on_tick = self._state.on_tick  # before the closed check: see _registry.refused
        state = self._require_open(where)
        key = _registry.register(state, callback, one_shot=False)
        out = _lib.Handle()
        try:
            code = int(_lib.lib.cadence_publisher_subscribe(self._handle, on_tick, key, out))
            if code < 0:
                _registry.refused(state, code, where, self._require_open)
            return Subscription(self._loop, state, out.value, key, f"to {self._settings()}")
        except BaseException:
            _registry.abandoned(state, key, out.value)
            raise

    # ---- asyncio ----

    def values(self) -> AsyncStream[float]:
        """The fire dates, as an asynchronous iterator for asyncio code (Swift's ``values``):
        ``async for fire_date in timer`` is the same.

        Each iteration is a subscriber (:meth:`sink`): it receives the fire dates (seconds since
        the epoch, float) in the asyncio loop that iterates, from whatever runs the Cadence loop:
        that asyncio loop itself once attached (:meth:`Loop.attach_asyncio
        <cadence.Loop.attach_asyncio>`), or another thread (:meth:`Loop.threaded
        <cadence.Loop.threaded>`).
        Subscribing does not connect a :class:`TimerPublisher`: iterate its
        :meth:`~TimerPublisher.autoconnect` publisher, or :meth:`~TimerPublisher.connect` it.
        Fire dates wait in the stream until read, so a slow reader sees every one, late.

        The subscription is cancelled when the iterating task ends or is cancelled, when the
        iteration is left, or on :meth:`AsyncStream.aclose <cadence.AsyncStream.aclose>`; for an
        autoconnect publisher whose last subscriber this was, that stops the timer. The
        iteration ends when the loop closes.

        Raises:
            BadHandle: the publisher or its loop is closed.
            RuntimeError: from the iteration, when it must wait and nothing runs the loop.
        """
        return self._stream(_fire_date, "fire dates")

    def ticks(self) -> AsyncStream[Tick]:
        """As :meth:`values`, but the whole :class:`~cadence.Tick` (``fire_date`` and
        ``skipped``), for asyncio code that wants to know about missed ticks.

        Raises:
            BadHandle: the publisher or its loop is closed.
        """
        return self._stream(_same_tick, "ticks")

    def __aiter__(self) -> AsyncStream[float]:
        """``async for fire_date in timer``: the same as :meth:`values`."""
        return self.values()

    def _stream(self, convert: Callable[[Tick], _T], what: str) -> AsyncStream[_T]:
        channel: Channel[_T] = Channel(self._state)
        subscription = self.sink(lambda tick: channel.put(convert(tick)))
        on_loop_close(self._state, channel)
        return AsyncStream(channel, subscription.close, f"of {what} from {self._settings()}")

    def __enter__(self: _P) -> _P:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Closes the publisher (subscriptions and a connected timer go on)."""
        self.close()

    def _settings(self) -> str:
        # The missed-tick policy only when it is not the default.
        missed = (
            ""
            if self._missed_ticks is MissedTickPolicy.SKIP
            else f", missed_ticks={self._missed_ticks}"
        )
        return (
            f"{type(self).__name__}(interval={self._interval!r}, "
            f"tolerance={self._tolerance!r}, mode={self._mode!r}{missed})"
        )

    def __repr__(self) -> str:
        closed = self._state_word()
        return f"<cadence.{self._settings()}{' ' + closed if closed else ''}>"


class TimerPublisher(_Publisher):
    """A connectable publisher of a repeating timer's ticks (Swift's ``TimerPublisher``, like
    Foundation's ``Timer.TimerPublisher``); made by :meth:`Loop.publish`.

    Creating or subscribing does nothing: :meth:`connect` starts the timer (first fire one
    interval later, then on that grid), and cancelling the connection stops it for good. A
    publisher goes idle -> connected -> cancelled and never back; a new publisher is the only
    restart. :meth:`autoconnect` gives a publisher that runs while it has subscribers.

    :meth:`close` (or leaving a ``with`` block) releases the publisher; a connected timer and its
    subscribers go on. Once nothing can make the timer tick again (the publisher closed or
    collected before it was ever connected, or closed with its connection cancelled and closed
    too), its subscriptions read as cancelled. Closing the loop closes it too.

    Threads: every method may be called from any thread and from callbacks.
    """

    def connect(self) -> Connection:
        """Starts the timer, or returns a connection to the one already running.

        The first fire date is one interval after this call (a fresh clock read). Connecting a
        connected publisher gives another connection to the same timer (no second timer);
        connecting a cancelled one gives a connection that is already cancelled and starts
        nothing.

        Returns:
            A :class:`~cadence.Connection`: cancel it (or leave its ``with`` block) to stop the
            timer. Dropping or closing it leaves the timer running.

        Raises:
            BadHandle: the publisher or its loop is closed.
        """
        where = "TimerPublisher.connect"
        state = self._require_open(where)
        out = _lib.Handle()
        check(int(_lib.lib.cadence_publisher_connect(self._handle, out)), where)
        # Detached: dropping or closing a Connection leaves the timer running, as documented
        # here, where releasing the C handle of the last connection would stop it.
        _lib.lib.cadence_cancellable_detach(out.value)
        return Connection(self._loop, state, out.value, None, f"to {self._settings()}")

    def autoconnect(self) -> AutoconnectTimerPublisher:
        """A publisher with the same settings (missed-tick policy included) that connects when its
        first subscriber arrives, stops when the last one cancels, and starts a fresh timer (fresh
        grid) for the next first subscriber, like Combine's ``autoconnect()``. It is independent
        of this publisher: it has its own timer and stays open if this one is closed.

        Raises:
            BadHandle: the publisher or its loop is closed.
        """
        where = "TimerPublisher.autoconnect"
        state = self._require_open(where)
        out = _lib.Handle()
        check(int(_lib.lib.cadence_publisher_autoconnect(self._handle, out)), where)
        return AutoconnectTimerPublisher(
            self._loop,
            state,
            out.value,
            self._interval,
            self._tolerance,
            self._mode,
            self._missed_ticks,
        )


class AutoconnectTimerPublisher(_Publisher):
    """A timer publisher that runs exactly while it has subscribers; made by
    :meth:`TimerPublisher.autoconnect`.

    The first :meth:`sink` starts a timer; a subscriber joining late receives the same fire dates
    as the early ones from then on; when the last subscriber cancels, the timer stops, and the
    next first subscriber starts a fresh one. It connects itself: :meth:`connect` raises
    :class:`~cadence.NotSupported`, as ``cadence_publisher_connect`` returns ``CADENCE_ENOTSUP``.

    Threads: every method may be called from any thread and from callbacks.
    """

    def connect(self) -> NoReturn:
        """Always raises: an autoconnect publisher connects when its first subscriber arrives,
        so there is nothing to connect (``cadence_publisher_connect`` gives ``ENOTSUP``). Keep
        the :class:`TimerPublisher` that made it to connect by hand.

        Raises:
            NotSupported: always, on an open publisher (also a :class:`TypeError`).
            BadHandle: the publisher or its loop is closed.
        """
        where = "AutoconnectTimerPublisher.connect"
        self._require_open(where)
        out = _lib.Handle()
        code = int(_lib.lib.cadence_publisher_connect(self._handle, out))
        if code == 0:  # not what the C API promises; give the connection back and refuse anyway
            _lib.lib.cadence_cancellable_release(out.value)
        check(code, where)
        raise NotSupported(
            context=where,
            detail="publisher must be a connectable publisher, got an autoconnect publisher",
        )
