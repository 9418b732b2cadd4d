"""Making timers on a loop: publishers, scheduled timers, countdowns and pollers (the part of
:class:`~cadence.Loop` that makes them; every one is C's, through the loop's handle)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Callable, cast

from . import _checks, _lib, _state, _table, countdown, poller
from ._state import LoopState
from .cancellable import ScheduledTimer
from .countdown import Countdown
from .errors import error_for
from .poller import Poll, Poller
from .publisher import MissedTickPolicy, TimerPublisher, policy_value, subscribe
from .tick import Tick

__all__ = ["TimerMaking"]

if TYPE_CHECKING:
    from .loop import Loop

_lib_ = _lib.lib
_hold, _drop, _new, _slots = _table.hold, _table.drop, object.__new__, _table.slots
_schedule_default = _lib_.cadence_loop_schedule_default
#: A timer owns its key (_table.OWNER) only with a GIL: the steps of its end and of its
#: collection are each atomic only under it; without one, keys are freed as C ends them.
_OWN = 1 if _lib.GIL else 0


class TimerMaking:
    """What makes timers on a :class:`~cadence.Loop` (a base class of it)."""

    _state: LoopState

    @property
    def _loop(self) -> Loop:
        return cast("Loop", self)

    def publish(
        self,
        interval: float,
        *,
        tolerance: float = 0.0,
        mode: str = "default",
        missed_ticks: MissedTickPolicy = MissedTickPolicy.SKIP,
    ) -> TimerPublisher:
        """A connectable timer publisher: Swift's
        ``TimerPublisher(every:tolerance:on:in:missedTicks:)``, like Foundation's
        ``Timer.publish(every:tolerance:on:in:)``.

        Nothing is scheduled until :meth:`TimerPublisher.connect` (or the first ``subscribe`` of its
        :meth:`~TimerPublisher.autoconnect` publisher).

        Args:
            interval: seconds between fire dates, a float > 0 and finite.
            tolerance: seconds the timer may fire late (never early), >= 0 and finite; Apple
                suggests at least 10 % of the interval. Keyword-only.
            mode: ``"default"`` (the default), ``"common"``, or a mode added with
                :meth:`add_mode` / :meth:`add_common_mode`. Keyword-only. Use ``"common"`` for a
                timer that must tick in every common mode.
            missed_ticks: what a late timer does about the fire dates it missed, a
                :class:`~cadence.MissedTickPolicy`; default ``SKIP`` (fire once, keep the grid).
                Keyword-only.

        Raises:
            TypeError: a number is not a number, ``mode`` not a str, or ``missed_ticks`` not a
                :class:`~cadence.MissedTickPolicy`.
            InvalidArgument: ``interval`` <= 0, NaN or infinite; ``tolerance`` negative, NaN or
                infinite; ``mode`` empty or malformed.
            UnknownMode: ``mode`` is not registered.
            BadHandle: the loop is closed.
        """
        where = "Loop.publish"
        every = _checks.seconds(interval, where, "interval")
        late = _checks.seconds(tolerance, where, "tolerance")
        encoded = _checks.mode(mode, where)
        policy = policy_value(missed_ticks, where)
        publish = _lib_.cadence_publisher_create
        made = _state.made(publish, where, self._state.handle, every, late, encoded)
        publisher = TimerPublisher(self._loop, made)
        if policy:
            publisher.missed_ticks = missed_ticks
        return publisher

    def schedule(
        self,
        delay: float,
        callback: Callable[[Tick], object],
        *,
        interval: float | None = None,
        tolerance: float = 0.0,
        mode: str = "default",
        missed_ticks: MissedTickPolicy | None = None,
        weak: bool = False,
    ) -> ScheduledTimer:
        """Calls ``callback(tick)`` once, ``delay`` seconds from now, while the loop runs in a mode
        covered by ``mode`` (like a non-repeating ``Timer``); with ``interval``, again every
        ``interval`` seconds after that, on that grid, until cancelled (a repeating ``Timer``
        without a publisher: Swift's ``schedule(after:interval:tolerance:in:missedTicks:)``).

        The callback runs on the thread inside :meth:`run` and receives a :class:`~cadence.Tick`
        whose ``fire_date`` is the time it was due (a grid point) and ``skipped`` the grid points
        a late repeating timer skipped. An exception it raises stops the loop and is re-raised
        from :meth:`run`. When ``schedule`` raises, the callback is never called.

        Args:
            delay: seconds from now to the first call, a float >= 0 and finite (0: on the next
                pass).
            callback: any callable taking one :class:`~cadence.Tick`, called as a plain
                function: a coroutine function (``async def``) only makes a coroutine that nothing
                awaits, so it never runs. Iterate a publisher with ``async for`` instead, or call
                ``asyncio.ensure_future(coro())`` in a plain callback on an attached loop.
            interval: None (the default) for one call; else seconds between calls, a float > 0
                and finite. Keyword-only.
            tolerance: seconds each call may come late, >= 0 and finite. Keyword-only.
            mode: as for :meth:`publish`; default ``"default"``. Keyword-only.
            missed_ticks: for a repeating timer, what it does about fire dates it missed, as for
                :meth:`publish`; None (the default) is ``SKIP``. Keyword-only.
            weak: hold ``callback`` weakly (a bound method through :class:`weakref.WeakMethod`,
                anything else through :class:`weakref.ref`): when its target is collected the
                timer is cancelled at once and never fires after. Default False: held strongly,
                as asyncio's ``call_later`` holds its callback (a weak default would drop
                lambdas and fire-and-forget one-shots). Keyword-only.

        Returns:
            A :class:`~cadence.ScheduledTimer`. Collected, a one-shot still fires
            (fire-and-forget) and a repeating timer stops, unless detached (``detach()``);
            closing it cancels either. A callback that refers to its own timer keeps it
            reachable, so it runs until cancelled: use ``weak=True`` for a bound method.

        Raises:
            TypeError: ``callback`` is not callable, a number is not a number, ``mode`` not a str,
                ``missed_ticks`` not a :class:`~cadence.MissedTickPolicy` or given without
                ``interval``.
            InvalidArgument: ``delay`` or ``tolerance`` negative, NaN or infinite; ``interval``
                <= 0, NaN or infinite; bad ``mode``.
            UnknownMode: ``mode`` is not registered.
            BadHandle: the loop is closed.
        """
        if (
            interval is None is missed_ticks
            and weak is False
            and tolerance == 0.0
            and mode == "default"
            and type(delay) is float
            and callable(callback)
        ):  # the hot path: one C call of three arguments, which returns the handle
            key = _hold(callback)
            _slots[key + 1] = _OWN  # owned by the timer (_table.OWNER), before C can end it
            if (handle := _schedule_default(self._state.handle, delay, key)) < 0:
                _slots[key + 1] = 0
                _drop(key)
                raise error_for(handle, "Loop.schedule", self)
            timer = _new(ScheduledTimer)  # __init__'s work without its call: the hot path
            timer._handle, timer._key = handle, key
            return timer
        where = "Loop.schedule"
        after = _checks.seconds(delay, where, "delay")
        late = _checks.seconds(tolerance, where, "tolerance")
        encoded = _checks.mode(mode, where)
        state = self._state
        if interval is None:
            if missed_ticks is not None:
                raise TypeError(
                    f"{where}: missed_ticks applies to a repeating timer (give interval)"
                )
            function: Any = _lib_.cadence_loop_schedule
            times: tuple[Any, ...] = (state.handle, after, late, encoded, None)
        else:
            every = _checks.seconds(interval, where, "interval")
            chosen = MissedTickPolicy.SKIP if missed_ticks is None else missed_ticks
            policy = policy_value(chosen, where)
            function = _lib_.cadence_loop_schedule_repeating
            times = (state.handle, after, every, late, policy, encoded, None)
        if weak is not False or not callable(callback):  # held weakly, or refused
            return ScheduledTimer(subscribe(function, where, callback, weak, *times, loop=self))
        key = _hold(callback)  # as the hot path, with C's out argument
        _slots[key + 1] = _OWN
        if code := function(*times, key, out := _lib.Handle()):
            _slots[key + 1] = 0
            _drop(key)
            raise error_for(code, where, self)
        timer = ScheduledTimer(int(out.value))
        timer._key = key
        return timer

    def countdown(
        self,
        deadline: float,
        tick: float,
        callback: Callable[[int], object] | None = None,
        *,
        on_finish: Callable[[], object] | None = None,
    ) -> Countdown:
        """Counts down to ``deadline``: calls ``callback(remaining)`` with the whole seconds left
        (rounded up) at once and whenever the value changes on a tick every ``tick`` seconds,
        then ``callback(0)`` at the deadline, then ``on_finish()`` once (Swift's
        ``countdown(to:tick:)`` with ``sink(receiveCompletion:receiveValue:)``).

        ``deadline`` is a date, not a number of seconds to go: seconds since the epoch on a real
        loop, virtual seconds on a virtual one, as :meth:`now` reads. For a 10 s countdown pass
        ``loop.now() + 10``; a bare ``10`` counts 10 s on a virtual loop at 0, but on a real loop
        it is long past, so the countdown gives 0 and finishes on the next pass::

            loop.countdown(loop.now() + 10, 0.25, lambda left: print(left, "s left"))

        Each value is computed from the loop's clock and the deadline, never by counting ticks,
        so after any gap (a blocked thread, skipped ticks) the next value is right: on a virtual
        loop a 3 s countdown with 0.25 s ticks gives 3 at 0, 2 at 1, 1 at 2 and 0 at 3 s, however
        the clock is advanced. The timers are in the ``"common"`` mode.

        Nothing is called before this method returns (libuv's rule: a registering call never
        calls back): the first value comes on the loop's next pass, at the same time on a virtual
        loop (computed then, so still right), as do the calls with 0 and ``on_finish`` for a
        deadline already past; a countdown cancelled before that pass calls nothing. Every call
        runs on the thread running the loop; an exception from one is re-raised from :meth:`run`
        (or passed to :func:`threading.excepthook` on the loop's own thread).

        Args:
            deadline: when the countdown reaches 0: a date on the loop's clock in seconds (as
                :meth:`now` gives, so ``loop.now() + 10`` for 10 s from now), finite.
            tick: seconds between recomputations, a float > 0 and finite (0.25 gives a responsive
                label).
            callback: called with each value, an :class:`int` >= 0; or None (the default) for a
                countdown that asyncio code awaits or iterates
                (``async for remaining in loop.countdown(...)``).
            on_finish: called with no arguments after the last value, or None. Keyword-only.

        Returns:
            A :class:`~cadence.Countdown`: cancel it to stop early. Dropped and collected, or
            closed, it is cancelled, unless detached.

        Raises:
            TypeError: a number is not a number, or a callback not callable.
            InvalidArgument: ``tick`` <= 0, NaN or infinite; ``deadline`` NaN or infinite.
            BadHandle: the loop is closed.
        """
        return countdown.start(self._loop, deadline, tick, callback, on_finish)

    def poller(
        self,
        interval: float,
        operation: Callable[[Poll], object | Awaitable[object]],
        *,
        tolerance: float | None = None,
        finish_on_return: bool = True,
    ) -> Poller:
        """Runs ``operation(poll)`` every ``interval`` seconds, never overlapping, while active
        (Swift's ``Poller(every:tolerance:on:operation:)``): the first poll one interval from now,
        then one on each tick unless the previous poll is still running, so a slow operation
        delays the next poll to the first tick after it finishes instead of stacking polls.

        A poll runs until it is finished:

        - ``finish_on_return=True`` (the default): when ``operation`` returns. The common case,
          a synchronous check.
        - ``finish_on_return=False``: when :meth:`Poll.finish` (or :meth:`Poller.finish` with
          ``poll.number``) is called, from any thread, at any later time; hand the work to a
          thread or an executor and finish from there (for example
          ``executor.submit(fetch).add_done_callback(lambda _: poll.finish())``).

        Either way, a poll whose ``operation`` raises is finished, so the poller never stalls;
        the exception is re-raised from :meth:`run` (or passed to :func:`threading.excepthook`
        on the loop's own thread). The timer is in the ``"common"`` mode; ``operation`` runs on
        the thread running the loop.

        In asyncio code, ``operation`` may be a coroutine function (``async def``), or return an
        awaitable: when the poller is made inside a running asyncio loop, each poll's awaitable
        runs as a task of that loop, and "returns" means "completes" (with
        ``finish_on_return=True``, the next poll waits for it). Its exception goes to that loop's
        exception handler. ``await poller`` waits until the poller stops; cancelling the waiting
        task stops it.

        Args:
            interval: seconds between polls, a float > 0 and finite.
            operation: called with a :class:`~cadence.Poll` (``number``, ``date``, ``finish()``);
                may return an awaitable (see above).
            tolerance: seconds of lateness the poll timer may use, >= 0 and finite; None (the
                default) for 10 % of the interval, Apple's advice for repeating timers.
                Keyword-only.
            finish_on_return: whether a poll is finished when ``operation`` returns (see above);
                a :class:`bool`. Keyword-only.

        Returns:
            A :class:`~cadence.Poller`: ``set_active(False)`` pauses it, ``cancel()`` stops it.
            Dropped and collected, or closed, it stops, unless detached.

        Raises:
            TypeError: a number is not a number, ``operation`` not callable, or
                ``finish_on_return`` not a bool.
            InvalidArgument: ``interval`` <= 0, NaN or infinite; ``tolerance`` negative, NaN or
                infinite.
            BadHandle: the loop is closed.
        """
        return poller.start(self._loop, interval, operation, tolerance, finish_on_return)
