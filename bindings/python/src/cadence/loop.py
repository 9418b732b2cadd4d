"""The event loop that fires timers."""

from __future__ import annotations

import ctypes
import weakref
from typing import TYPE_CHECKING, Callable

from . import _args, _lib, _registry
from .cancellable import OneShotTimer
from .errors import EBUSY, BadHandle, LoopBusy, check
from .publisher import TimerPublisher

if TYPE_CHECKING:
    from .tick import Tick

__all__ = ["Loop"]


def _destroy(state: _registry.LoopState) -> int:
    """Destroys the C loop unless it is running; returns the C code."""
    with state.lock:
        if state.closed:
            return 0
        code = int(_lib.lib.cadence_loop_destroy(state.handle))
        if code == 0:
            state.closed = True
    if code == 0:
        _registry.unregister_loop(state)
    return code


class Loop:
    """An event loop that fires timers: Cadence's run loop, on libuv's monotonic clock.

    A loop does nothing until someone runs it: :meth:`run` fires the timers of one mode for a
    number of seconds, sleeping in between, then returns. A loop that nobody runs fires nothing.

    Modes: ``"default"`` exists and is always a common mode; ``"common"`` is a pseudo-mode that
    timers can be added to (they then fire in every common mode) but that cannot be run. Add
    others with :meth:`add_mode` and :meth:`add_common_mode`. ``mode`` arguments default to
    ``"default"`` everywhere (:meth:`run`, :meth:`publish`, :meth:`schedule`), as Foundation's
    scheduled timers do; pass ``mode="common"`` for a timer that must also tick while the loop
    runs in a custom common mode (UIKit's scroll-tracking case).

    Lifetime: :meth:`close` (or leaving a ``with`` block, or garbage collection) cancels every
    timer and closes every publisher, subscription, connection and one-shot timer made from the
    loop; using them afterwards raises :class:`~cadence.errors.BadHandle`.

    Threads: timers fire on the thread inside :meth:`run`. Every method may be called from any
    thread; calls from other threads take effect before the loop's next pass.
    """

    def __init__(self) -> None:
        """Creates a loop with the modes ``"default"`` and ``"common"``.

        Raises:
            EventLoopError: libuv could not create its loop.
            OutOfMemory: no memory.
        """
        handle = _lib.LoopHandle()
        check(int(_lib.lib.cadence_loop_create(ctypes.byref(handle))), "Loop()")
        self._state = _registry.LoopState(handle)
        self._finalizer = weakref.finalize(self, _destroy, self._state)

    # ---- Running ----

    def run(self, seconds: float, mode: str = "default") -> None:
        """Runs the loop in ``mode`` for ``seconds`` of its clock, firing due timers on this
        thread and sleeping in between, then returns (early after :meth:`stop`).

        Timers fire in fire-date order (ties in scheduling order), never before their fire date;
        a timer armed during a pass waits for a later pass.

        Args:
            seconds: how long to run, a float >= 0 (0 fires what is due and returns).
            mode: a registered mode other than ``"common"``; default ``"default"``.

        Raises:
            Exception: whatever a callback raised during this run, with its traceback; the loop
                was stopped right after that callback's pass.
            TypeError: ``seconds`` is not a number or ``mode`` not a str.
            InvalidArgument: ``seconds`` is NaN, infinite or negative; ``mode`` is empty,
                malformed or ``"common"``.
            UnknownMode: ``mode`` is not registered.
            LoopBusy: the loop is already running (for example, ``run`` from one of its
                callbacks, or from a second thread).
            BadHandle: the loop is closed.
        """
        value = _args.seconds(seconds, "Loop.run()", "seconds")
        name = _args.mode(mode, "Loop.run()")
        state = self._require_open("Loop.run()")
        with state.lock:
            state.running += 1
        try:
            code = int(_lib.lib.cadence_loop_run(state.handle, name, value))
        finally:
            with state.lock:
                state.running -= 1
        if code == 0:
            # Only the call that actually ran collects a callback's exception: a nested run
            # rejected with EBUSY must not steal it.
            error = state.take_error()
            if error is not None:
                try:
                    raise error
                finally:
                    del error
        if code == EBUSY:
            raise LoopBusy(context="Loop.run() while the loop is running")
        check(code, f"Loop.run(seconds={seconds!r}, mode={mode!r})")

    def stop(self) -> None:
        """Makes a running :meth:`run` return after its current pass; does nothing if the loop is
        not running. Callable from callbacks and other threads.

        Raises:
            BadHandle: the loop is closed.
        """
        state = self._require_open("Loop.stop()")
        check(int(_lib.lib.cadence_loop_stop(state.handle)), "Loop.stop()")

    @property
    def running(self) -> bool:
        """Whether a :meth:`run` call of this loop is in progress, on any thread (counted from
        just before the call enters C, so it may be True a moment before the loop really runs)."""
        return self._state.running > 0

    # ---- Modes ----

    def add_mode(self, name: str) -> None:
        """Registers a custom mode (1 to 255 bytes of UTF-8, no control characters), so that
        timers can be added to it and the loop run in it. Registering twice is harmless.

        Raises:
            TypeError: ``name`` is not a str.
            InvalidArgument: ``name`` is empty, too long, has control characters, or is
                ``"common"``.
            BadHandle: the loop is closed.
        """
        where = f"Loop.add_mode({name!r})"
        encoded = _args.mode(name, where)
        state = self._require_open(where)
        check(int(_lib.lib.cadence_loop_add_mode(state.handle, encoded)), where)

    def add_common_mode(self, name: str) -> None:
        """Registers ``name`` (if needed) as a common mode: timers in ``"common"``, existing ones
        included, then fire while the loop runs in it (as ``CFRunLoopAddCommonMode``).

        Raises:
            As :meth:`add_mode`.
        """
        where = f"Loop.add_common_mode({name!r})"
        encoded = _args.mode(name, where)
        state = self._require_open(where)
        check(int(_lib.lib.cadence_loop_add_common_mode(state.handle, encoded)), where)

    # ---- Clock ----

    def now(self) -> float:
        """A fresh read of the loop's clock on the fire-date scale: seconds since the Unix epoch,
        derived from the monotonic clock (so comparable with ``Tick.fire_date``).

        Raises:
            BadHandle: the loop is closed.
        """
        state = self._require_open("Loop.now()")
        out = ctypes.c_double()
        check(int(_lib.lib.cadence_loop_now(state.handle, ctypes.byref(out))), "Loop.now()")
        return out.value

    @property
    def wakeups(self) -> int:
        """How many times the loop has woken from sleep to fire timers since it was created.

        Raises:
            BadHandle: the loop is closed.
        """
        state = self._require_open("Loop.wakeups")
        out = ctypes.c_uint64()
        check(int(_lib.lib.cadence_loop_wakeups(state.handle, ctypes.byref(out))), "Loop.wakeups")
        return int(out.value)

    # ---- Timers ----

    def publish(
        self, interval: float, *, tolerance: float = 0.0, mode: str = "default"
    ) -> TimerPublisher:
        """A connectable timer publisher, like ``Timer.publish(every:tolerance:on:in:)``.

        Nothing is scheduled until :meth:`TimerPublisher.connect` (or the first ``sink`` of its
        :meth:`~TimerPublisher.autoconnect` publisher).

        Args:
            interval: seconds between fire dates, a float > 0 and finite.
            tolerance: seconds the timer may fire late (never early), >= 0 and finite; Apple
                suggests at least 10 % of the interval. Keyword-only.
            mode: ``"default"`` (the default), ``"common"``, or a mode added with
                :meth:`add_mode` / :meth:`add_common_mode`. Keyword-only. Use ``"common"`` for a
                timer that must tick in every common mode.

        Raises:
            TypeError: a number is not a number, or ``mode`` not a str.
            InvalidArgument: ``interval`` <= 0, NaN or infinite; ``tolerance`` negative, NaN or
                infinite; ``mode`` empty or malformed.
            UnknownMode: ``mode`` is not registered.
            BadHandle: the loop is closed.
        """
        where = f"Loop.publish(interval={interval!r}, tolerance={tolerance!r}, mode={mode!r})"
        every = _args.seconds(interval, "Loop.publish()", "interval")
        late = _args.seconds(tolerance, "Loop.publish()", "tolerance")
        encoded = _args.mode(mode, "Loop.publish()")
        state = self._require_open(where)
        out = _lib.PublisherHandle()
        check(
            int(
                _lib.lib.cadence_timer_publish(
                    state.handle, every, late, encoded, ctypes.byref(out)
                )
            ),
            where,
        )
        return TimerPublisher(self, state, out, every, late, mode)

    def schedule(
        self,
        delay: float,
        callback: Callable[[Tick], object],
        *,
        tolerance: float = 0.0,
        mode: str = "default",
    ) -> OneShotTimer:
        """Calls ``callback(tick)`` once, ``delay`` seconds from now, while the loop runs in a mode
        covered by ``mode`` (like a non-repeating ``Timer``).

        The callback runs on the thread inside :meth:`run` and receives a :class:`~cadence.Tick`
        whose ``fire_date`` is the time it was due. An exception it raises stops the loop and is
        re-raised from :meth:`run`. When ``schedule`` raises, the callback is never called.

        Args:
            delay: seconds from now, a float >= 0 and finite (0: on the next pass).
            callback: any callable taking one :class:`~cadence.Tick`.
            tolerance: seconds the call may come late, >= 0 and finite. Keyword-only.
            mode: as for :meth:`publish`; default ``"default"``. Keyword-only.

        Returns:
            A :class:`~cadence.OneShotTimer`; dropping or closing it does not cancel the call.

        Raises:
            TypeError: ``callback`` is not callable, a number is not a number, ``mode`` not a str.
            InvalidArgument: ``delay`` or ``tolerance`` negative, NaN or infinite; bad ``mode``.
            UnknownMode: ``mode`` is not registered.
            BadHandle: the loop is closed.
        """
        where = f"Loop.schedule(delay={delay!r}, tolerance={tolerance!r}, mode={mode!r})"
        after = _args.seconds(delay, "Loop.schedule()", "delay")
        _args.callback(callback, "Loop.schedule()")
        late = _args.seconds(tolerance, "Loop.schedule()", "tolerance")
        encoded = _args.mode(mode, "Loop.schedule()")
        state = self._require_open(where)
        key = _registry.register(state, callback, one_shot=True)
        out = _lib.CancellableHandle()
        code = int(
            _lib.lib.cadence_loop_schedule(
                state.handle,
                after,
                late,
                encoded,
                _registry.TRAMPOLINE,
                ctypes.c_void_p(key),
                ctypes.byref(out),
            )
        )
        if code < 0:
            _registry.unregister(key)
            check(code, where)
        return OneShotTimer(self, state, out, key, f"after {after!r} s in mode {mode!r}")

    # ---- Lifetime ----

    def close(self) -> None:
        """Cancels every timer, closes every object made from this loop, and frees the loop.
        Closing twice is harmless.

        Raises:
            LoopBusy: the loop is running (for example, ``close`` from one of its callbacks);
                nothing was closed.
        """
        code = _destroy(self._state)
        if code == EBUSY:
            raise LoopBusy(context="Loop.close() while the loop is running")
        check(code, "Loop.close()")
        self._finalizer.detach()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._state.closed

    def __enter__(self) -> Loop:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Closes the loop."""
        self.close()

    def _require_open(self, what: str) -> _registry.LoopState:
        if self._state.closed:
            raise BadHandle(context=f"{what} on a closed Loop")
        return self._state

    def __repr__(self) -> str:
        if self._state.closed:
            return "<cadence.Loop closed>"
        status = "running" if self.running else "idle"
        try:
            wakeups = f", {self.wakeups} wake-ups"
        except Exception:  # noqa: BLE001 - closed meanwhile on another thread
            wakeups = ""
        return f"<cadence.Loop {status}{wakeups}>"
