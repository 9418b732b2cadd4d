"""The event loop that fires timers: real or virtual, run by the caller or on its own thread."""

from __future__ import annotations

import asyncio
import ctypes
import math
import weakref
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Callable

from . import _args, _async, _lib, _lifecycle, _registry, _running, countdown, poller
from ._loop_thread import LoopThreadMethods
from .cancellable import ScheduledTimer
from .countdown import Countdown
from .errors import EBUSY, RUNNING_OR_THREAD, InvalidArgument, LoopBusy, check
from .poller import Poll, Poller
from .publisher import MissedTickPolicy, TimerPublisher, missed_tick_policy

if TYPE_CHECKING:
    from .tick import Tick

__all__ = ["Loop"]

_schedule = _lib.lib.cadence_loop_schedule
_schedule_repeating = _lib.lib.cadence_loop_schedule_repeating
_detach = _lib.lib.cadence_cancellable_detach


class Loop(LoopThreadMethods):
    """An event loop that fires timers: Cadence's run loop, on libuv's monotonic clock or, made
    by :meth:`virtual`, on a virtual clock that moves only when told.

    A loop does nothing until someone runs it: :meth:`run` fires the timers of one mode for a
    number of seconds (or until :meth:`stop`), sleeping in between, then returns;
    :meth:`start_thread` runs it on a thread of its own instead, :meth:`attach_asyncio` from the
    running asyncio loop, and :meth:`fileno` with :meth:`run_pass` from any other event loop. A
    loop that nobody runs fires nothing.

    Modes: ``"default"`` exists and is always a common mode; ``"common"`` is a pseudo-mode that
    timers can be added to (they then fire in every common mode) but that cannot be run. Add
    others with :meth:`add_mode` and :meth:`add_common_mode`. ``mode`` arguments are keyword-only
    and default to ``"default"`` everywhere (:meth:`run`, :meth:`start_thread`, :meth:`publish`,
    :meth:`schedule`), as Foundation's scheduled timers do; pass ``mode="common"`` for a timer
    that must also tick while the loop runs in a custom common mode (UIKit's scroll tracking).
    Countdowns and pollers are always in ``"common"``.

    Lifetime: :meth:`close` (or leaving a ``with`` block, or garbage collection) cancels every
    timer and closes every publisher, subscription, connection, scheduled timer, countdown and
    poller made from the loop; using them afterwards raises
    :class:`~cadence.errors.BadHandle`. The loop holds the callbacks given to it, so callbacks
    that refer to the loop make a cycle the garbage collector can collect. A loop is kept alive
    while :meth:`run` runs it, while it is attached to asyncio, and while it has a thread of its
    own (until :meth:`stop_thread`).

    Threads: timers fire on the thread inside :meth:`run` or :meth:`run_pass`, on the asyncio
    thread when attached, or on the loop's own thread. Every
    method may be called from any thread; calls from other threads take effect before the
    loop's next pass.
    """

    def __init__(self) -> None:
        """Creates a loop on libuv's monotonic clock, with the modes ``"default"`` and
        ``"common"``. Fire dates are seconds since the Unix epoch.

        Raises:
            EventLoopError: libuv could not create its loop.
            OutOfMemory: no memory.
        """
        handle = _lib.Handle()
        check(int(_lib.lib.cadence_loop_create(handle)), "Loop")
        self._adopt(handle.value, virtual=False)

    @classmethod
    def virtual(cls) -> Loop:
        """Creates a loop on a virtual clock, for exact and instant tests of timer code (Swift's
        ``Loop.virtual()``).

        The clock starts at 0 and moves only when told: ``run(d)`` advances it by ``d`` seconds,
        stepping to each wake-up and firing what is due there, in order, without sleeping (with
        zero tolerance each timer fires exactly at its fire date); :meth:`advance_clock` moves it
        without firing, as if the loop's thread were blocked. Fire dates, :meth:`now`,
        countdown and poll dates are virtual seconds. Everything else is as on a real loop:
        the same engine runs it.

        Raises:
            OutOfMemory: no memory.
        """
        handle = _lib.Handle()
        check(int(_lib.lib.cadence_loop_create_virtual(handle)), "Loop.virtual")
        loop = cls.__new__(cls)
        loop._adopt(handle.value, virtual=True)
        return loop

    def _adopt(self, handle: int, *, virtual: bool) -> None:
        # The only strong reference to the callbacks: see cadence._registry.
        self._callbacks = _registry.CallbackTable()
        self._state = _registry.LoopState(handle, self._callbacks, virtual=virtual)
        self._finalizer = weakref.finalize(self, _lifecycle.collect, self._state)

    @property
    def is_virtual(self) -> bool:
        """Whether this loop runs on a virtual clock (made by :meth:`virtual`)."""
        return self._state.virtual

    # ---- Running ----

    def run(self, seconds: float | None = None, *, mode: str = "default") -> None:
        """Runs the loop in ``mode`` for ``seconds`` of its clock, firing due timers on this
        thread and sleeping in between, then returns (early after :meth:`stop`); with no
        ``seconds`` (None, or ``math.inf``) it runs until :meth:`stop` (``CFRunLoopRun``).

        Timers fire in fire-date order (ties in scheduling order), never before their fire date;
        a timer armed during a pass waits for a later pass. On a virtual loop the clock advances
        by ``seconds`` at once, stepping through every wake-up on the way, and nothing sleeps.

        Ctrl-C: on the main thread a real loop is run as ``poll`` on its descriptor (see
        :meth:`fileno`) and one pass at a time, so a signal's Python handler runs at once, with
        no helper thread; while the loop runs, Python's default SIGINT handler is replaced by one
        that raises KeyboardInterrupt from ``run`` (at once, or after the current pass); raised
        in a callback, it comes out of ``run`` like any exception of a callback. A custom SIGINT
        handler is left alone, runs when the signal arrives, and the run goes on. On a virtual
        loop, Ctrl-C is seen at the next callback.

        Args:
            seconds: how long to run, a float >= 0 (0 fires what is due and returns); None (the
                default) or ``math.inf`` to run until :meth:`stop`.
            mode: a registered mode other than ``"common"``; default ``"default"``. Keyword-only.

        Raises:
            Exception: whatever a callback raised during this run, with its traceback; the loop
                was stopped right after that callback's pass. When several callbacks raise in
                one run (or SIGINT arrives too), the first is raised, unless a later one is not
                an :class:`Exception` (``SystemExit``, ``KeyboardInterrupt``), which wins; the
                others are passed to :func:`threading.excepthook`.
            KeyboardInterrupt: SIGINT (Ctrl-C) arrived while the main thread ran the loop.
            TypeError: ``seconds`` is not a number or ``mode`` not a str.
            InvalidArgument: ``seconds`` is NaN or negative, or, on a virtual loop, infinite or
                so long that it would take the clock to its end (see :meth:`advance_clock`);
                ``mode`` is empty, malformed or ``"common"``.
            UnknownMode: ``mode`` is not registered.
            LoopBusy: the loop is already running (for example, ``run`` from one of its
                callbacks, from a second thread, while it has a thread of its own or while it is
                attached to asyncio).
            BadHandle: the loop is closed.
        """
        value = math.inf if seconds is None else _args.seconds(seconds, "Loop.run", "seconds")
        self._run(_args.mode(mode, "Loop.run"), value, "Loop.run")

    def run_until_idle(self, *, mode: str = "default") -> None:
        """Runs the loop in ``mode`` as :meth:`run` does, until no referenced timer that can fire
        in ``mode`` is armed, then returns (early after :meth:`stop`): libuv's
        ``UV_RUN_DEFAULT``, asyncio's ``run_until_complete``, Node's exit rule (Swift's
        ``runUntilIdle(mode:)``, C's ``cadence_loop_run_until_idle``).

        Every timer is referenced unless :meth:`ScheduledTimer.unref` was called on it (only
        scheduled timers can be unreferenced): a one-shot until it fires or is cancelled; a
        repeating scheduled timer, a connected publisher and an active poller until cancelled; a
        countdown until it finishes. Only timers in ``mode``, and in ``"common"`` when ``mode``
        is a common mode (read at each pass), count: a timer of another mode can never fire in
        this run. The check follows each pass: with nothing referenced the run fires what is
        due and returns; after the last referenced one-shot fires it returns at once (on a
        virtual loop the clock then reads that one-shot's fire date). A cancel or ``unref()``
        from another thread that leaves nothing referenced wakes the run, which returns.

        On a virtual loop the clock steps from wake-up to wake-up as in :meth:`run`, with no
        bound (as libuv): a referenced repeating timer keeps it going until a callback calls
        :meth:`stop`, cancels the timer or unreferences it. Ctrl-C on the main thread is seen at
        the next callback, which stops the run and raises KeyboardInterrupt from it (the idle
        check is the engine's, inside one C call).

        Args:
            mode: a registered mode other than ``"common"``; default ``"default"``. Keyword-only.

        Raises:
            Exception: whatever a callback raised during this run, as for :meth:`run`.
            KeyboardInterrupt: as for :meth:`run`.
            TypeError: ``mode`` is not a str.
            InvalidArgument: ``mode`` is empty, malformed or ``"common"``.
            UnknownMode: ``mode`` is not registered.
            LoopBusy: the loop is already running (for example, from one of its callbacks) or
                has a thread of its own.
            BadHandle: the loop is closed.
        """
        name = _args.mode(mode, "Loop.run_until_idle")
        self._run(name, None, "Loop.run_until_idle")

    def _run(self, name: bytes, seconds: float | None, call: str) -> None:
        """:meth:`run` for ``seconds``, or :meth:`run_until_idle` when ``seconds`` is None."""
        state = self._require_open(call)
        # Only the call that actually runs collects a callback's exception: a nested run,
        # rejected here, must not steal it.
        if not state.enter_run():
            raise LoopBusy(context=call, detail=RUNNING_OR_THREAD)
        try:
            with _registry.binding_code(), _running.sigint_stops_run():
                code = _running.run(state, name, seconds, call)
        finally:
            state.leave_run()
        _registry.raise_kept([state.take_error() if code == 0 else None])
        if code == EBUSY:
            raise LoopBusy(context=call, detail=RUNNING_OR_THREAD)
        check(code, call)

    def stop(self) -> None:
        """Makes a running :meth:`run` return after its current pass; does nothing if the loop is
        not running. Callable from callbacks and other threads. It does not end the loop's own
        thread (that thread goes on with its next run at once): use :meth:`stop_thread`.

        Raises:
            BadHandle: the loop is closed.
        """
        self._require_open("Loop.stop").stop()

    @property
    def running(self) -> bool:
        """Whether the loop is running: a :meth:`run` (or :meth:`run_until_idle`) call is in
        progress on any thread (counted from just before the call enters C, so it may be True a
        moment before the loop really runs), the loop is attached to asyncio
        (:meth:`attach_asyncio`), or it runs on its own thread (:attr:`has_thread`)."""
        return self._state.running or self._state.thread

    # ---- Modes ----

    def add_mode(self, name: str) -> None:
        """Registers a custom mode (1 to 255 bytes of UTF-8, no control characters), so that
        timers can be added to it and the loop run in it. Registering twice is harmless.

        Raises:
            TypeError: ``name`` is not a str.
            InvalidArgument: ``name`` is empty, too long, has control characters, or is
                ``"common"``.
            OutOfMemory: one more than 65,536 modes on the loop (``"default"`` and
                ``"common"`` included).
            BadHandle: the loop is closed.
        """
        where = "Loop.add_mode"
        encoded = _args.mode(name, where)
        state = self._require_open(where)
        check(int(_lib.lib.cadence_loop_add_mode(state.handle, encoded)), where)

    def add_common_mode(self, name: str) -> None:
        """Registers ``name`` (if needed) as a common mode: timers in ``"common"``, existing ones
        included, then fire while the loop runs in it (as ``CFRunLoopAddCommonMode``).

        Raises:
            As :meth:`add_mode`.
        """
        where = "Loop.add_common_mode"
        encoded = _args.mode(name, where)
        state = self._require_open(where)
        check(int(_lib.lib.cadence_loop_add_common_mode(state.handle, encoded)), where)

    # ---- Clock ----

    def now(self) -> float:
        """A fresh read of the loop's clock on the fire-date scale: seconds since the Unix epoch,
        derived from the monotonic clock (so comparable with ``Tick.fire_date``); virtual
        seconds, from 0, on a virtual loop.

        Raises:
            BadHandle: the loop is closed.
        """
        state = self._require_open("Loop.now")
        out = ctypes.c_double()
        check(int(_lib.lib.cadence_loop_now(state.handle, out)), "Loop.now")
        return out.value

    @property
    def wakeups(self) -> int:
        """How many times the loop has woken from sleep to fire timers since it was created.

        Raises:
            BadHandle: the loop is closed.
        """
        state = self._require_open("Loop.wakeups")
        out = ctypes.c_uint64()
        check(int(_lib.lib.cadence_loop_wakeups(state.handle, out)), "Loop.wakeups")
        return int(out.value)

    @property
    def armed_timer_count(self) -> int:
        """How many timers are armed on the loop, in all modes (Swift's ``armedTimerCount``).

        A connected publisher counts once whatever its subscribers; a scheduled timer until it
        is cancelled (a one-shot: or fires); a countdown two (its tick and its deadline) until it
        finishes; an active poller one (plus one for a poll pending after
        :meth:`Poller.set_active`).

        Raises:
            BadHandle: the loop is closed.
        """
        where = "Loop.armed_timer_count"
        state = self._require_open(where)
        out = ctypes.c_uint64()
        check(int(_lib.lib.cadence_loop_armed_timers(state.handle, out)), where)
        return int(out.value)

    def advance_clock(self, seconds: float) -> None:
        """Moves a virtual loop's clock forward by ``seconds`` without running it, as if its
        thread were blocked (Swift's ``advanceClock(by:)``). Nothing fires; at the next
        :meth:`run`, an overdue repeating timer fires once, reporting its latest grid point and
        the skipped ones (``Tick.skipped``), then keeps to its grid.

        Args:
            seconds: how far, a float >= 0 and finite (0 is allowed and does nothing).

        Raises:
            TypeError: ``seconds`` is not a number.
            NotSupported: the loop is real (made by ``Loop()``); its clock cannot be moved.
            InvalidArgument: ``seconds`` is NaN, infinite or negative, or would take the clock to
                its end (2**64 - 1 ns, about 584 years after its start); the clock is left alone.
            BadHandle: the loop is closed.
        """
        where = "Loop.advance_clock"
        value = _args.seconds(seconds, "Loop.advance_clock", "seconds")
        state = self._require_open(where)
        check(int(_lib.lib.cadence_loop_advance_clock(state.handle, value)), where)

    # ---- Timers ----

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

        Nothing is scheduled until :meth:`TimerPublisher.connect` (or the first ``sink`` of its
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
        every = _args.seconds(interval, "Loop.publish", "interval")
        late = _args.seconds(tolerance, "Loop.publish", "tolerance")
        encoded = _args.mode(mode, "Loop.publish")
        policy = missed_tick_policy(missed_ticks, "Loop.publish")
        state = self._require_open(where)
        out = _lib.Handle()
        check(int(_lib.lib.cadence_timer_publish(state.handle, every, late, encoded, out)), where)
        publisher = TimerPublisher(self, state, out.value, every, late, mode, MissedTickPolicy.SKIP)
        if policy is not MissedTickPolicy.SKIP:
            try:
                publisher.missed_ticks = policy
            except BaseException:
                publisher.close()
                raise
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
            callback: any callable taking one :class:`~cadence.Tick`.
            interval: None (the default) for one call; else seconds between calls, a float > 0
                and finite. Keyword-only.
            tolerance: seconds each call may come late, >= 0 and finite. Keyword-only.
            mode: as for :meth:`publish`; default ``"default"``. Keyword-only.
            missed_ticks: for a repeating timer, what it does about fire dates it missed, as for
                :meth:`publish`; None (the default) is ``SKIP``. Keyword-only.

        Returns:
            A :class:`~cadence.ScheduledTimer`; dropping or closing it does not cancel the calls
            (a repeating timer whose object is gone runs until its loop closes).

        Raises:
            TypeError: ``callback`` is not callable, a number is not a number, ``mode`` not a str,
                ``missed_ticks`` not a :class:`~cadence.MissedTickPolicy` or given without
                ``interval``.
            InvalidArgument: ``delay`` or ``tolerance`` negative, NaN or infinite; ``interval``
                <= 0, NaN or infinite; bad ``mode``.
            UnknownMode: ``mode`` is not registered.
            BadHandle: the loop is closed.
        """
        if interval is not None or missed_ticks is not None:
            return self._schedule_repeating(
                delay, callback, interval, tolerance, mode, missed_ticks
            )
        # The hot path of the binding (one-shots): the common argument types are checked inline,
        # and messages are formatted only on error.
        after = delay if type(delay) is float else _args.seconds(delay, "Loop.schedule", "delay")
        if not callable(callback):
            _args.callback(callback, "Loop.schedule")
        late = (
            tolerance
            if type(tolerance) is float
            else _args.seconds(tolerance, "Loop.schedule", "tolerance")
        )
        default = type(mode) is str and mode == "default"
        encoded = b"default" if default else _args.mode(mode, "Loop.schedule")
        state = self._state
        on_tick = state.on_tick  # before the closed check: see _registry.refused
        if state.closed:
            self._require_open("Loop.schedule")
        key = _registry.register(state, callback, one_shot=True)
        out = _lib.Handle()
        try:  # free on the way in: an exception before the object exists drops the entry
            code = _schedule(state.handle, after, late, encoded, on_tick, key, out)
            if code < 0:
                _registry.refused(state, code, "Loop.schedule", self._require_open)
            return ScheduledTimer(self, state, out.value, key, after if default else (after, mode))
        except BaseException:
            _registry.abandoned(state, key, out.value)
            raise

    def _schedule_repeating(
        self,
        delay: float,
        callback: Callable[[Tick], object],
        interval: float | None,
        tolerance: float,
        mode: str,
        missed_ticks: MissedTickPolicy | None,
    ) -> ScheduledTimer:
        """:meth:`schedule` with ``interval`` (or ``missed_ticks``)."""
        where = "Loop.schedule"
        if interval is None:
            raise TypeError(f"{where}: missed_ticks applies to a repeating timer (give interval)")
        after = _args.seconds(delay, where, "delay")
        _args.callback(callback, where)
        every = _args.seconds(interval, where, "interval")
        late = _args.seconds(tolerance, where, "tolerance")
        encoded = _args.mode(mode, where)
        policy = missed_tick_policy(
            MissedTickPolicy.SKIP if missed_ticks is None else missed_ticks, where
        )
        state = self._state
        on_tick = state.on_tick  # before the closed check: see _registry.refused
        if state.closed:
            self._require_open(where)
        key = _registry.register(state, callback, one_shot=False)
        out = _lib.Handle()
        try:  # as in schedule
            code = int(
                _schedule_repeating(
                    state.handle, after, every, late, policy.value, encoded, on_tick, key, out
                )
            )
            if code < 0:
                _registry.refused(state, code, where, self._require_open)
            # Closing or dropping the object leaves the timer running, as documented here
            # (releasing a C handle of a repeating timer that was not detached cancels it).
            _detach(out)
            missed = "" if policy is MissedTickPolicy.SKIP else f", missed_ticks={policy}"
            description = f"after {after + 0.0!r} s every {every!r} s in mode {mode!r}{missed}"
            return ScheduledTimer(self, state, out.value, key, description)
        except BaseException:
            _registry.abandoned(state, key, out.value)
            raise

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
            deadline: when the countdown reaches 0, a date on the loop's clock in seconds (as
                :meth:`now` gives; for example ``loop.now() + 10``), finite.
            tick: seconds between recomputations, a float > 0 and finite (0.25 gives a responsive
                label).
            callback: called with each value, an :class:`int` >= 0; or None (the default) for a
                countdown that asyncio code awaits or iterates
                (``async for remaining in loop.countdown(...)``).
            on_finish: called with no arguments after the last value, or None. Keyword-only.

        Returns:
            A :class:`~cadence.Countdown`: cancel it to stop early. Dropping it does not cancel
            it; closing it does.

        Raises:
            TypeError: a number is not a number, or a callback not callable.
            InvalidArgument: ``tick`` <= 0, NaN or infinite; ``deadline`` NaN or infinite.
            BadHandle: the loop is closed.
        """
        where = "Loop.countdown"
        end = _args.seconds(deadline, "Loop.countdown", "deadline")
        every = _args.seconds(tick, "Loop.countdown", "tick")
        if callback is not None:
            _args.callback(callback, "Loop.countdown")
        if on_finish is not None:
            _args.callback(on_finish, "Loop.countdown", "on_finish")
        on_countdown = self._state.on_countdown  # before the closed check: see _registry.refused
        state = self._require_open(where)
        progress = countdown.Progress(state)
        _async.on_loop_close(state, progress)
        key = _registry.register(
            state, countdown.make_entry(progress, callback, on_finish), one_shot=False
        )
        out = _lib.Handle()
        try:
            code = int(
                _lib.lib.cadence_countdown_start(state.handle, end, every, on_countdown, key, out)
            )
            if code < 0:
                _registry.refused(state, code, where, self._require_open)
            return Countdown(self, state, out.value, key, progress, end, every)
        except BaseException:
            _registry.abandoned(state, key, out.value)
            raise

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
            Dropping it does not stop it; closing it does.

        Raises:
            TypeError: a number is not a number, ``operation`` not callable, or
                ``finish_on_return`` not a bool.
            InvalidArgument: ``interval`` <= 0, NaN or infinite; ``tolerance`` negative, NaN or
                infinite.
            BadHandle: the loop is closed.
        """
        where = "Loop.poller"
        every = _args.seconds(interval, "Loop.poller", "interval")
        _args.callback(operation, "Loop.poller", "operation")
        if tolerance is None:
            late = _lib.TOLERANCE_DEFAULT
        else:
            late = _args.seconds(tolerance, "Loop.poller", "tolerance")
            if late < 0:  # C would read -1.0 as "10 % of the interval"
                raise InvalidArgument(
                    context=where, detail=f"tolerance must be >= 0 and finite or None, got {late!r}"
                )
        _args.flag(finish_on_return, "Loop.poller", "finish_on_return")
        on_poll = self._state.on_poll  # before the closed check: see _registry.refused
        state = self._require_open(where)
        try:
            aloop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            aloop = None
        shared = poller.Shared(aloop, state)
        _async.on_loop_close(state, shared)
        key = _registry.register(
            state, poller.make_entry(shared, state, operation, finish_on_return), one_shot=False
        )
        out = _lib.Handle()
        try:
            code = int(_lib.lib.cadence_poller_start(state.handle, every, late, on_poll, key, out))
            if code < 0:
                _registry.refused(state, code, where, self._require_open)
            return Poller(self, state, out.value, key, every, shared)
        except BaseException:
            _registry.abandoned(state, key, out.value)
            raise

    # ---- Lifetime ----

    def close(self) -> None:
        """Cancels every timer, closes every object made from this loop, and frees the loop.
        Closing twice is harmless. A loop attached to asyncio is detached first (as
        :meth:`Attachment.detach <cadence.Attachment.detach>`: on the asyncio thread, or once the
        asyncio loop has stopped).

        Raises:
            LoopBusy: the loop is running (for example, ``close`` from one of its callbacks) or
                has a thread of its own (call :meth:`stop_thread` first); nothing was closed.
        """
        if self._attachment is not None:
            self._attachment.detach()
        code = _lifecycle.destroy(self._state)
        if code == EBUSY:
            raise LoopBusy(context="Loop.close", detail=RUNNING_OR_THREAD)
        check(code, "Loop.close")
        self._finalizer.detach()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._state.closed

    def __enter__(self) -> Loop:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stops the loop's own thread, if it has one, then closes the loop.

        Raises:
            LoopBusy: as :meth:`stop_thread` and :meth:`close` (leaving the block on one of the
                loop's callbacks).
        """
        if not self._state.closed:
            self.stop_thread()
        self.close()

    def __repr__(self) -> str:
        kind = "virtual " if self._state.virtual else ""
        if self._state.closed:
            return f"<cadence.Loop {kind}closed>"
        if self._attachment is not None and self._attachment.attached:
            status = "attached to asyncio"
        elif self._state.thread:
            status = "running on its thread"
        else:
            status = "running" if self._state.running else "idle"
        try:
            wakeups = f", {self.wakeups} wake-ups"
        except Exception:  # noqa: BLE001 - closed meanwhile on another thread
            wakeups = ""
        return f"<cadence.Loop {kind}{status}{wakeups}>"
