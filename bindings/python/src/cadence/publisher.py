"""Timer publishers: Swift's ``TimerPublisher(every:tolerance:on:in:)`` and ``autoconnect()``."""

from __future__ import annotations

import contextlib
import ctypes
import enum
import operator
from typing import TYPE_CHECKING, Any, Callable, NoReturn, TypeVar

from . import _checks, _lib, _state
from ._async import AsyncStream, Channel
from ._former import former_name
from ._unique import Unique
from .cancellable import Connection, Subscription
from .errors import check, error_for

if TYPE_CHECKING:
    from .loop import Loop
    from .tick import Tick

__all__ = ["AutoconnectTimerPublisher", "MissedTickPolicy", "TimerPublisher"]

_P = TypeVar("_P", bound="_Publisher")
_T = TypeVar("_T")
_lib_ = _lib.lib


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


class _Publisher(Unique):
    """What both kinds of timer publisher share: settings (read through C on each access, as
    ``cadence_publisher_interval`` and its neighbours give them), ``subscribe``, ``close``,
    give-up."""

    __slots__ = ("__weakref__", "_handle", "_loop")

    def __init__(self, loop: Loop, handle: int) -> None:
        self._loop, self._handle = loop, handle

    def __del__(self) -> None:
        # Collected: gives the handle up. A connected timer goes on while a connection (or, for
        # autoconnect, a subscription) is held; after that its subscriptions are cancelled.
        with contextlib.suppress(Exception):  # at interpreter exit the module may be gone
            _lib_.cadence_publisher_release(self._handle)

    @property
    def loop(self) -> Loop:
        """The loop this publisher belongs to."""
        return self._loop

    def _read(self, what: str, out: Any) -> Any:
        """The value C's ``cadence_publisher_<what>`` writes to ``out``."""
        function = getattr(_lib_, f"cadence_publisher_{what}")
        check(function(self._handle, out), f"{type(self).__name__}.{what}", self._loop)
        return out.value

    @property
    def interval(self) -> float:
        """Seconds between fire dates (an autoconnect publisher's: those of its maker).

        Raises:
            BadHandle: the publisher or its loop is closed.
        """
        return float(self._read("interval", ctypes.c_double()))

    @property
    def tolerance(self) -> float:
        """Seconds a fire may come after its fire date (never before).

        Raises:
            BadHandle: the publisher or its loop is closed.
        """
        return float(self._read("tolerance", ctypes.c_double()))

    @property
    def mode(self) -> str:
        """The run loop mode the timer is added to.

        Raises:
            BadHandle: the publisher or its loop is closed.
        """
        name = ctypes.create_string_buffer(256)  # a mode name has at most 255 bytes
        code = _lib_.cadence_publisher_mode(self._handle, name, len(name))
        check(min(code, 0), f"{type(self).__name__}.mode", self._loop)
        return name.value.decode("utf-8")

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called on this publisher or on its loop."""
        return not self._handle or not self._loop._state.handle

    def close(self) -> None:
        """Gives the handle up (a publisher has no cancel): a connected timer goes on while a
        connection or (autoconnect) a subscription is held. Closing twice does nothing."""
        _lib_.cadence_publisher_release(self._handle)
        self._handle = 0

    @property
    def missed_ticks(self) -> MissedTickPolicy:
        """What the timer does about fire dates it missed (Swift's ``missedTicks``); default
        :attr:`MissedTickPolicy.SKIP`.

        Setting it applies to the timers started from then on (by the next :meth:`connect`, or
        an autoconnect publisher's next first subscriber); a running timer keeps its own.
        :meth:`TimerPublisher.autoconnect` copies it.

        Raises:
            TypeError: (setting) the value is not a :class:`MissedTickPolicy`.
            BadHandle: the publisher or its loop is closed.
        """
        return MissedTickPolicy(self._read("missed_ticks", ctypes.c_int()))

    @missed_ticks.setter
    def missed_ticks(self, policy: MissedTickPolicy) -> None:
        where = f"{type(self).__name__}.missed_ticks"
        value = policy_value(policy, where)
        check(_lib_.cadence_publisher_set_missed_ticks(self._handle, value), where, self._loop)

    def subscribe(self, callback: Callable[[Tick], object], *, weak: bool = False) -> Subscription:
        """Subscribes ``callback`` to the timer's ticks (Swift's ``subscribe(_:)``, C's
        ``cadence_publisher_subscribe``; named ``sink`` until 0.4).

        ``callback(tick)`` receives a :class:`~cadence.Tick` (``fire_date`` in seconds since the
        epoch, ``skipped`` grid points) on the thread running the loop. Every subscriber of one
        timer receives the same fire dates. An exception raised by the callback stops the loop and
        is re-raised from the :meth:`Loop.run` call that was running it.

        Subscribing does not connect a :class:`TimerPublisher`; it starts an
        :class:`AutoconnectTimerPublisher`'s timer if this is the first subscriber.

        Args:
            callback: any callable taking one :class:`~cadence.Tick`, called as a plain
                function: a coroutine function (``async def``) only makes a coroutine that nothing
                awaits, so it never runs. Use ``async for tick in publisher.ticks()`` instead, or
                call ``asyncio.ensure_future(coro())`` in a plain callback on an attached loop.
            weak: hold ``callback`` weakly (a bound method through :class:`weakref.WeakMethod`,
                anything else through :class:`weakref.ref`): when its target is collected the
                subscription is cancelled at once. Default False: held strongly, as asyncio
                holds callbacks. Keyword-only.

        Returns:
            A :class:`~cadence.Subscription`: collected, it is cancelled (``detach()`` it to keep
            it going); use it as a context manager to cancel on exit.

        Raises:
            TypeError: ``callback`` is not callable (or, with ``weak``, cannot be weakly
                referenced).
            BadHandle: the publisher or its loop is closed.
        """
        args, where = (self._handle, None), f"{type(self).__name__}.subscribe"  # None: C's fire fn
        function = _lib_.cadence_publisher_subscribe
        handle = subscribe(function, where, callback, weak, *args, loop=self._loop)
        return Subscription(handle, self._loop, f"to {self._settings()}")

    def sink(self, callback: Callable[[Tick], object], *, weak: bool = False) -> Subscription:
        """The former name of :meth:`subscribe` (deprecated in 0.4, removed in 0.5): warns with a
        :class:`DeprecationWarning`, then subscribes. Swift's ``sink`` delivers fire dates; this
        one delivered ticks, which is ``subscribe`` in Swift and C."""
        former_name(f"{type(self).__name__}.sink", "subscribe")
        return self.subscribe(callback, weak=weak)

    def values(self) -> AsyncStream[float]:
        """The fire dates, as an asynchronous iterator for asyncio code (Swift's ``values``):
        ``async for fire_date in timer`` is the same.

        Each iteration is a subscriber (:meth:`subscribe`): it receives the fire dates (seconds
        since the epoch, float) in the asyncio loop that iterates, from whatever runs the Cadence
        loop: that asyncio loop itself once attached (:meth:`Loop.attach_asyncio
        <cadence.Loop.attach_asyncio>`), or another thread (:meth:`Loop.threaded
        <cadence.Loop.threaded>`).
        Subscribing does not connect a :class:`TimerPublisher`: iterate its
        :meth:`~TimerPublisher.autoconnect` publisher, or :meth:`~TimerPublisher.connect` it (an
        iteration of one never connected waits for ever, even on a running loop: connecting
        after subscribing is how every subscriber gets the first tick, so it is not an error).
        Fire dates wait in the stream until read, so a slow reader sees every one, late.

        The subscription is cancelled when the iterating task ends or is cancelled, when the
        iteration is left, or on :meth:`AsyncStream.aclose <cadence.AsyncStream.aclose>`; for an
        autoconnect publisher whose last subscriber this was, that stops the timer. The
        iteration ends when the loop closes.

        Raises:
            BadHandle: the publisher or its loop is closed.
            RuntimeError: from the iteration, when it must wait and nothing runs the loop.
        """
        return self._stream(operator.attrgetter("fire_date"), "fire dates")

    def ticks(self) -> AsyncStream[Tick]:
        """As :meth:`values`, but the whole :class:`~cadence.Tick` (``fire_date`` and
        ``skipped``), for asyncio code that wants to know about missed ticks.

        Raises:
            BadHandle: the publisher or its loop is closed.
        """
        return self._stream(None, "ticks")

    #: ``async for fire_date in timer``: the same as :meth:`values`.
    __aiter__ = values

    def _stream(self, convert: Callable[[Tick], _T] | None, what: str) -> AsyncStream[_T]:
        channel: Channel[_T] = Channel(self._loop._state, convert)  # the subscriber
        closing = self.subscribe(channel).close
        return AsyncStream(channel, closing, f"of {what} from {self._settings()}")

    def __enter__(self: _P) -> _P:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Closes the publisher (subscriptions and a connected timer go on)."""
        self.close()

    def _made(self, function: Any, where: str) -> int:
        """The handle ``function(handle, out)`` makes from this publisher (``_state.made``)."""
        return _state.made(function, where, self._handle, loop=self._loop)

    def _settings(self) -> str:
        """The publisher as made, for reprs (read through C: the publisher must be open)."""
        shown = f"interval={self.interval!r}, tolerance={self.tolerance!r}, mode={self.mode!r}"
        if (missed := self.missed_ticks) is not MissedTickPolicy.SKIP:
            shown += f", missed_ticks={missed}"
        return f"{type(self).__name__}({shown})"

    def __repr__(self) -> str:
        if not self._loop._state.handle:
            return f"<cadence.{type(self).__name__} closed (loop closed)>"
        if self.closed:  # its settings are C's, gone with the handle
            return f"<cadence.{type(self).__name__} closed>"
        return f"<cadence.{self._settings()}>"


def subscribe(fn: Any, where: str, callback: Any, weak: bool, *args: Any, loop: Any = None) -> int:
    """Registers ``callback`` (held weakly, as a :class:`~cadence._state.Weak`, with ``weak``)
    through the C function ``fn(*args, userdata, out)``; returns the handle. ``loop``: as for
    :func:`_state.register <cadence._state.register>`."""
    _checks.function(callback, where)
    if not _checks.flag(weak, where, "weak"):
        return _state.register(fn, where, callback, *args, loop=loop)
    userdata = _state.Weak(callback, where)
    handle = _state.register(fn, where, userdata, *args, loop=loop)
    userdata.adopt(handle)
    return handle


def policy_value(value: object, where: str) -> int:
    """The C value of a :class:`MissedTickPolicy`; TypeError for anything else."""
    if not isinstance(value, MissedTickPolicy):
        raise TypeError(
            f"{where}: missed_ticks must be a cadence.MissedTickPolicy, not {type(value).__name__}"
        )
    return value.value


class TimerPublisher(_Publisher):
    """A connectable publisher of a repeating timer's ticks (Swift's ``TimerPublisher``, like
    Foundation's ``Timer.TimerPublisher``); made by :meth:`Loop.publish`.

    Creating or subscribing does nothing: :meth:`connect` starts the timer (first fire one
    interval later, then on that grid), and cancelling the connection stops it for good. A
    publisher goes idle -> connected -> cancelled and never back; a new publisher is the only
    restart. :meth:`autoconnect` gives a publisher that runs while it has subscribers.

    :meth:`close` (or leaving a ``with`` block, or collection) gives the handle up: a connected
    timer goes on while a connection handle is held. Once nothing can make the timer tick again
    (given up before it was connected, or with every connection handle given up), its
    subscriptions read as cancelled.

    Threads: every method may be called from any thread and from callbacks.
    """

    __slots__ = ()

    def connect(self) -> Connection:
        """Starts the timer, or returns another handle to the connection already running.

        The first fire date is one interval after this call. Connecting a connected publisher
        gives another handle to the same connection (no second timer); connecting a cancelled
        one gives one that is already cancelled and starts nothing.

        Returns:
            A :class:`~cadence.Connection`: cancel it (or leave its ``with`` block) to stop the
            timer; giving up the last handle (collected or closed) stops it too, unless detached.

        Raises:
            BadHandle: the publisher or its loop is closed.
        """
        made = self._made(_lib_.cadence_publisher_connect, "TimerPublisher.connect")
        return Connection(made, self._loop, f"to {self._settings()}")

    def autoconnect(self) -> AutoconnectTimerPublisher:
        """A publisher with the same settings (missed-tick policy included) that connects when its
        first subscriber arrives, stops when the last one cancels, and starts a fresh timer (fresh
        grid) for the next first subscriber, like Combine's ``autoconnect()``. It is independent
        of this publisher: it has its own timer and stays open if this one is closed.

        Raises:
            BadHandle: the publisher or its loop is closed.
        """
        where = "TimerPublisher.autoconnect"
        made = self._made(_lib_.cadence_publisher_autoconnect, where)
        return AutoconnectTimerPublisher(self._loop, made)


class AutoconnectTimerPublisher(_Publisher):
    """A timer publisher that runs exactly while it has subscribers; made by
    :meth:`TimerPublisher.autoconnect`.

    The first :meth:`subscribe` starts a timer; a subscriber joining late receives the same fire
    dates as the early ones from then on; when the last subscriber is cancelled (or given up), the
    timer stops, and the next first subscriber starts a fresh one. :meth:`connect` raises
    :class:`~cadence.NotSupported`, as ``cadence_publisher_connect`` returns ``CADENCE_ENOTSUP``.

    Threads: every method may be called from any thread and from callbacks.
    """

    __slots__ = ()

    def connect(self) -> NoReturn:
        """Always raises: an autoconnect publisher connects when its first subscriber arrives.

        Raises:
            NotSupported: always, on an open publisher (also a :class:`TypeError`).
            BadHandle: the publisher or its loop is closed.
        """
        code = _lib_.cadence_publisher_connect(self._handle, _lib.Handle())
        raise error_for(code, "AutoconnectTimerPublisher.connect", self._loop)  # ENOTSUP or EBADF
