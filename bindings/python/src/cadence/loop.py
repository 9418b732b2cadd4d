"""The event loop that fires timers: real or virtual, run by the caller, on its own thread, by
asyncio or by another event loop of the program. How a run is driven, and Ctrl-C during it, is
:mod:`cadence._run`'s.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import weakref
from typing import Any, TypeVar

from . import _async, _cancels, _checks, _lib, _run, _state
from ._async import Attachment, descriptor
from ._former import former_name
from ._loop_thread import OwnThread
from ._loop_timers import TimerMaking
from ._state import LoopState
from ._unique import Unique
from .errors import (
    EBUSY,
    LOOP_IS_CLOSED,
    RUNNING_OR_THREAD,
    BadHandle,
    InvalidArgument,
    LoopBusy,
    check,
)

__all__ = ["Loop"]

_L = TypeVar("_L", bound="Loop")
_lib_ = _lib.lib


def _destroy(state: LoopState) -> int:
    """Destroys the C loop unless it is running (C releases every registration's userdata). The
    destroy itself runs outside the lock: a userdata's ``__del__`` may close the loop again, which
    then does nothing."""
    _cancels.flush()  # before C releases the keys: a recorded cancel never outlives its key
    with state.lock:
        if state.running or state.closing:
            return EBUSY if state.running else 0
        state.closing = True
    try:
        code = int(_lib_.cadence_loop_close(state.handle))
    finally:
        state.closing = False
    if code == 0:
        state.retire()
    return code


def _collect(state: LoopState) -> None:
    """The finalizer of a collected :class:`Loop`. One still marked running was attached to an
    asyncio loop that was closed without a detach (a run holds its loop): that ends here."""
    state.release()
    _destroy(state)


class Loop(TimerMaking, OwnThread, Unique):
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

    Lifetime: :meth:`close` (or leaving a ``with`` block, or collection) cancels every timer and
    gives up every handle made from the loop; using them afterwards raises
    :class:`~cadence.errors.BadHandle`. C holds the callbacks of its live registrations, so a
    callback that refers to the loop keeps it alive while that registration lives (a pending
    one-shot until it fires). A loop is kept alive while :meth:`run` runs it, while it is
    attached to asyncio, and while it has a thread of its own (until :meth:`stop_thread`).

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
        self._adopt(_state.made(_lib_.cadence_loop_create, "Loop"), virtual=False)

    @classmethod
    def virtual(cls) -> Loop:
        """Creates a loop on a virtual clock, for exact and instant tests of timer code (Swift's
        ``Loop.virtual()``).

        The clock starts at 0 and moves only when told: ``run(d)`` advances it by ``d`` seconds,
        stepping to each wake-up and firing what is due there, in order, without sleeping (with
        zero tolerance each timer fires exactly at its fire date); :meth:`jump_clock` moves it
        without firing, as if the loop's thread were blocked. Fire dates, :meth:`now`,
        countdown and poll dates are virtual seconds. Everything else is as on a real loop:
        the same engine runs it.

        Raises:
            OutOfMemory: no memory.
        """
        loop = cls.__new__(cls)
        loop._adopt(_state.made(_lib_.cadence_loop_create_virtual, "Loop.virtual"), virtual=True)
        return loop

    def _adopt(self, handle: int, *, virtual: bool) -> None:
        self._state = state = LoopState(handle, virtual=virtual)
        self._attachment: Attachment | None = None
        self._finalizer = weakref.finalize(self, _collect, state)

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
                so long that it would take the clock to its end (see :meth:`jump_clock`);
                ``mode`` is empty, malformed or ``"common"``.
            UnknownMode: ``mode`` is not registered.
            LoopBusy: the loop is already running (for example, ``run`` from one of its
                callbacks, from a second thread, while it has a thread of its own or while it is
                attached to asyncio).
            BadHandle: the loop is closed.
        """
        where = "Loop.run"
        value = math.inf if seconds is None else _checks.seconds(seconds, where, "seconds")
        self._run(_checks.mode(mode, where), value, where)

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
        :meth:`stop`, cancels the timer or unreferences it. On the main thread a real loop runs
        as :meth:`run` does there (waiting on :meth:`fileno`, one pass at a time, asking
        :meth:`alive` after each), so Ctrl-C raises KeyboardInterrupt at once.

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
        self._run(_checks.mode(mode, "Loop.run_until_idle"), None, "Loop.run_until_idle")

    def _run(self, name: bytes, seconds: float | None, where: str) -> None:
        _run.run(self._state, name, seconds, where)

    def stop(self) -> None:
        """Makes a running :meth:`run` return after its current pass. Callable from callbacks and
        other threads. It does not end the loop's own thread (that thread goes on with its next
        run at once): use :meth:`stop_thread`. Nor does it end an attachment to asyncio, which
        goes on firing timers: use :meth:`Attachment.detach <cadence.Attachment.detach>`. On a
        loop that is not running it stops nothing; once :meth:`fileno` was asked for or a
        :meth:`run_pass` made, it makes the descriptor readable until the next pass or run, so
        that a loop of the program's waiting on it wakes and can act on the stop it asked for
        (C's ``cadence_loop_stop``, Swift's ``stop()``).

        Raises:
            BadHandle: the loop is closed.
        """
        # A run driven from Python waits on the descriptor, which C's stop makes readable.
        self._state.stopping = True
        check(_lib_.cadence_loop_stop(self._state.handle), "Loop.stop", self)

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
        check(
            _lib_.cadence_loop_add_mode(self._state.handle, _checks.mode(name, where)), where, self
        )

    def add_common_mode(self, name: str) -> None:
        """Registers ``name`` (if needed) as a common mode: timers in ``"common"``, existing ones
        included, then fire while the loop runs in it (as ``CFRunLoopAddCommonMode``).

        Raises:
            As :meth:`add_mode`.
        """
        where = "Loop.add_common_mode"
        encoded = _checks.mode(name, where)
        check(_lib_.cadence_loop_add_common_mode(self._state.handle, encoded), where, self)

    # ---- Clock ----

    def _read(self, what: str, out: Any, where: str = "") -> Any:
        function = getattr(_lib_, f"cadence_loop_{what}")
        _cancels.flush()  # the armed count and the timeout see the recorded cancels
        check(function(self._state.handle, out), where or f"Loop.{what}", self)
        return out.value

    def now(self) -> float:
        """A fresh read of the loop's clock on the fire-date scale: seconds since the Unix epoch,
        derived from the monotonic clock (so comparable with ``Tick.fire_date``); virtual
        seconds, from 0, on a virtual loop.

        Raises:
            BadHandle: the loop is closed.
        """
        return float(self._read("now", ctypes.c_double()))

    @property
    def wakeups(self) -> int:
        """How many times the loop has woken from sleep to fire timers since it was created.

        Raises:
            BadHandle: the loop is closed.
        """
        return int(self._read("wakeups", ctypes.c_uint64()))

    @property
    def armed_timer_count(self) -> int:
        """How many timers are armed on the loop, in all modes (Swift's ``armedTimerCount``).

        A connected publisher counts once whatever its subscribers; a scheduled timer until it
        is cancelled (a one-shot: or fires); a countdown three until its first pass (the one-shot
        of its first value, due at once, beside its tick and its deadline), then two until it
        finishes; an active poller one (plus one for a poll pending after
        :meth:`Poller.set_active`).

        Raises:
            BadHandle: the loop is closed.
        """
        return int(self._read("armed_timers", ctypes.c_uint64(), "Loop.armed_timer_count"))

    def jump_clock(self, seconds: float) -> None:
        """Moves a virtual loop's clock forward by ``seconds`` without running it, as if its
        thread were blocked (Swift's ``jumpClock(by:)``, C's ``cadence_loop_jump_clock``; named
        ``advance_clock`` until 0.4). Nothing fires; at the next :meth:`run`, an overdue
        repeating timer fires once, reporting its latest grid point and the skipped ones
        (``Tick.skipped``), then keeps to its grid. A jump, not an advance: :meth:`run` on a
        virtual loop advances its clock and fires every tick on the way.

        Args:
            seconds: how far, a float >= 0 and finite (0 is allowed and does nothing).

        Raises:
            TypeError: ``seconds`` is not a number.
            NotSupported: the loop is real (made by ``Loop()``); its clock cannot be moved.
            InvalidArgument: ``seconds`` is NaN, infinite or negative, or would take the clock to
                its end (2**64 - 1 ns, about 584 years after its start); the clock is left alone.
            BadHandle: the loop is closed.
        """
        self._jump_clock(seconds, "Loop.jump_clock")

    def _jump_clock(self, seconds: float, where: str) -> None:
        value = _checks.seconds(seconds, where, "seconds")
        check(_lib_.cadence_loop_jump_clock(self._state.handle, value), where, self)

    def advance_clock(self, seconds: float) -> None:
        """The former name of :meth:`jump_clock` (deprecated in 0.4, removed in 0.5): warns with
        a :class:`DeprecationWarning`, then jumps."""
        former_name("Loop.advance_clock", "jump_clock")
        self._jump_clock(seconds, "Loop.advance_clock")  # its errors name the name called

    # ---- Inside another loop ----

    async def sleep(self, seconds: float, *, tolerance: float = 0.0) -> None:
        """Waits ``seconds`` on a one-shot of this loop, resumed in the running asyncio loop
        (Swift's ``loop.clock.sleep(for:tolerance:)``): never early, up to ``tolerance`` late so
        that it can share a wake-up; cancelling the waiting task cancels the one-shot at once.
        The loop must be run meanwhile: attached (:meth:`attach_asyncio`), on a thread of its own
        (:meth:`threaded`), or under a :class:`cadence.asyncio.EventLoop` (a virtual loop: its
        :class:`~cadence.asyncio.VirtualEventLoop`).

        Args:
            seconds: how long, >= 0 and finite.
            tolerance: how late it may end, >= 0 and finite; keyword-only.

        Raises:
            TypeError, InvalidArgument: a bad ``seconds`` or ``tolerance``.
            RuntimeError: nothing runs the loop, so the sleep would never end.
            BadHandle: the loop is closed.
        """
        where = "Loop.sleep"
        delay = _checks.finite_seconds(seconds, where, "seconds")
        late = _checks.finite_seconds(tolerance, where, "tolerance")
        self._check_open(where)
        await _async.sleep(self._state, self.schedule, delay, late)

    async def sleep_until(self, date: float, *, tolerance: float = 0.0) -> None:
        """:meth:`sleep` until the loop's clock reads ``date`` (as :meth:`now`: seconds since the
        epoch, virtual seconds on a virtual loop); a date past ends on the next pass.

        Raises:
            TypeError, InvalidArgument: ``date`` is not a finite number; a bad ``tolerance``.
            RuntimeError, BadHandle: as :meth:`sleep`.
        """
        where = "Loop.sleep_until"
        when = _checks.seconds(date, where, "date")
        if when != when or abs(when) == math.inf:
            raise InvalidArgument(context=where, detail=f"date must be finite, got {date!r}")
        late = _checks.finite_seconds(tolerance, where, "tolerance")
        self._check_open(where)
        await _async.sleep(self._state, self.schedule, max(0.0, when - self.now()), late)

    def _check_open(self, where: str) -> None:
        """Raises BadHandle, naming ``where``, once the loop is closed."""
        if self.closed:
            raise BadHandle(context=where, detail=LOOP_IS_CLOSED)

    def attach_asyncio(self, *, mode: str = "default") -> Attachment:
        """Attaches the loop to the running asyncio loop, which runs it from then on: its
        descriptor is watched with ``add_reader`` (as pyzmq does) and each time it is readable one
        pass (:meth:`run_pass`) fires what is due, on the asyncio thread, with no other thread
        (uvloop works too). Plain callbacks, ``async for`` over publishers and countdowns,
        awaited countdowns and pollers all run there, every timing rule kept::

            async def main():
                with cadence.Loop() as loop, loop.attach_asyncio():
                    async for fire_date in loop.publish(0.1).autoconnect():
                        ...

        Exceptions: one raised by a callback during a pass goes to the asyncio loop's exception
        handler (``loop.call_exception_handler``, which logs it by default), as for a callback of
        ``call_soon``, and the loop goes on; KeyboardInterrupt and SystemExit are raised, and end
        the asyncio loop. Errors of a coroutine go to the task that awaits it, as usual.

        The first pass is made before this returns (callbacks already due run in it). While
        attached the loop counts as running: :meth:`run`, :meth:`run_pass` and
        :meth:`start_thread` raise :class:`~cadence.LoopBusy`, and :meth:`stop` does nothing.
        :meth:`close` (or leaving the loop's ``with`` block) detaches it first.

        Args:
            mode: the mode to run in, as for :meth:`run`. Keyword-only.

        Returns:
            An :class:`~cadence.Attachment`: :meth:`~cadence.Attachment.detach` it (on the asyncio
            thread), or use it as a context manager.

        Raises:
            RuntimeError: no asyncio loop is running in this thread: "Loop.attach_asyncio must
                be called from a coroutine (or callback) running on an asyncio loop", chained
                to asyncio's "no running event loop".
            NotSupported: a virtual loop, which has no descriptor.
            LoopBusy: the loop is running, attached already, or has a thread of its own.
            TypeError, InvalidArgument, UnknownMode: a bad ``mode``, as for :meth:`run`; the loop
                is left detached.
            BadHandle: the loop is closed.
        """
        name = _checks.mode(mode, "Loop.attach_asyncio")
        self._attachment = Attachment(self, self._state, name)
        return self._attachment

    def timeout(self) -> float:
        """Seconds of the loop's clock until it next needs a :meth:`run_pass` (in the mode of the
        latest pass, ``"default"`` until the first): 0.0 if a wake-up is due now, ``math.inf`` if
        no timer that could fire in that mode is armed; coalescing is in the answer (C's
        ``cadence_loop_timeout``, libuv's ``uv_backend_timeout``). For a loop of the program's
        that waits on a timeout: round up when converting to a coarser unit, or the wait ends
        early and the pass finds nothing due. A timer armed from another thread afterwards may
        be due sooner: watch :meth:`fileno` to see that.

        Raises:
            BadHandle: the loop is closed.
        """
        return float(self._read("timeout", ctypes.c_double()))

    def alive(self, *, mode: str = "default") -> bool:
        """Whether a run until idle in ``mode`` would go on: a referenced timer that can fire in
        ``mode`` is armed, counted as :meth:`run_until_idle` counts (libuv's ``uv_loop_alive``;
        Swift's ``isAlive(mode:)``, C's ``cadence_loop_alive``). A program that runs the loop
        until idle from its own loop, with :meth:`fileno` and :meth:`run_pass`, asks after each
        pass and stops on False; while the latest answer is True, a cancel or ``unref()`` from
        any thread that leaves nothing referenced in ``mode`` makes :meth:`fileno` readable.

        Args:
            mode: a registered mode other than ``"common"``; default ``"default"``. Keyword-only.

        Raises:
            TypeError, InvalidArgument, UnknownMode: a bad ``mode``, as for :meth:`run`.
            BadHandle: the loop is closed.
        """
        where = "Loop.alive"
        out = ctypes.c_int()
        _cancels.flush()
        check(
            _lib_.cadence_loop_alive(self._state.handle, _checks.mode(mode, where), out),
            where,
            self,
        )
        return bool(out.value)

    def fileno(self) -> int:
        """The loop's descriptor, readable exactly when the loop has work to do now (a due
        wake-up in the mode of the latest :meth:`run_pass`, ``"default"`` until the first): watch
        it for reading in a ``select``, ``poll``, ``selectors`` or GLib loop of the program's and
        call :meth:`run_pass` when it is readable (``cadence_loop_fd``, libuv's
        ``uv_backend_fd``). Arming or cancelling a timer from any thread re-arms it at once.
        Do not read or close it; :meth:`close` closes it, so stop watching it first.

        Raises:
            NotSupported: a virtual loop, whose clock moves only when told.
            BadHandle: the loop is closed.
        """
        return descriptor(self._state, "Loop.fileno")

    def run_pass(self, *, mode: str = "default") -> None:
        """One pass on this thread without waiting (libuv's ``UV_RUN_NOWAIT``): fires what is due
        in ``mode`` now, with every rule of :meth:`run` (fire-date order, never early, a timer
        armed during the pass waits for the next one), then arms :meth:`fileno` for the next
        wake-up in ``mode``. On a virtual loop it fires what is due at its clock, which it does
        not move.

        Raises:
            Exception: what a callback raised during the pass (of several, as for :meth:`run`).
            TypeError, InvalidArgument, UnknownMode: a bad ``mode``, as for :meth:`run`.
            LoopBusy: the loop is running (a pass from one of its callbacks, a run, a thread of
                its own, or attached to asyncio).
            BadHandle: the loop is closed.
        """
        where = "Loop.run_pass"
        name = _checks.mode(mode, where)
        state = self._state
        if state.running or state.thread:
            raise LoopBusy(context=where, detail=RUNNING_OR_THREAD)
        code = state.run_pass(name)
        state.raise_errors()
        check(code, where, state)

    # ---- Lifetime ----

    def close(self) -> None:
        """Cancels every timer, closes every object made from this loop, and frees the loop.
        Closing twice does nothing, as a file's ``close()``. A loop attached to asyncio is detached
        first (as :meth:`Attachment.detach <cadence.Attachment.detach>`: on the asyncio thread, or
        once the asyncio loop has stopped).

        Raises:
            LoopBusy: the loop is running (for example, ``close`` from one of its callbacks), has
                a thread of its own (call :meth:`stop_thread` first) or is under a
                :class:`cadence.asyncio.EventLoop` not yet closed; nothing was closed.
        """
        if self._attachment is not None:
            self._attachment.detach()
        if getattr(self._state, "pending", None) is not None:  # _asyncio_pending.install's mark
            raise LoopBusy(
                context="Loop.close",
                detail="loop must not be under a cadence.asyncio event loop to be closed, got one "
                "(close the event loop first)",
            )
        code = _destroy(self._state)
        if code == EBUSY:
            raise LoopBusy(context="Loop.close", detail=RUNNING_OR_THREAD)
        check(code, "Loop.close")

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return not self._state.handle

    def __enter__(self) -> Loop:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stops the loop's own thread, if it has one, then closes the loop.

        Raises:
            LoopBusy: as :meth:`stop_thread` and :meth:`close` (leaving the block on one of the
                loop's callbacks).
        """
        if self._state.handle:
            self.stop_thread()
        self.close()

    def __repr__(self) -> str:
        state = self._state
        kind = "virtual " if state.virtual else ""
        if not state.handle:
            return f"<cadence.Loop {kind}closed>"
        if self._attachment is not None and self._attachment.attached:
            status = "attached to asyncio"
        elif state.thread:
            status = "running on its thread"
        else:
            status = "running" if state.running else "idle"
        with contextlib.suppress(Exception):  # closed meanwhile on another thread
            status += f", {self.wakeups} wake-ups"
        return f"<cadence.Loop {kind}{status}>"
