"""asyncio on Cadence: an event loop whose every timer is a Cadence timer, and its virtual twin.

:class:`EventLoop` is asyncio's selector event loop with one change: ``call_at`` and
``call_later``, so every ``asyncio.sleep``, ``asyncio.timeout``, ``wait_for``,
``Condition.wait_for`` timeout and library timeout, are Cadence one-shots: nanosecond
deadlines, never early (asyncio's own loop runs a timer up to its clock resolution early), in
fire-date order with ties in scheduling order, freed at once by ``TimerHandle.cancel()``, and
coalesced by tolerance when the program allows it (:func:`tolerance`). I/O, subprocesses,
signals and executors stay asyncio's: its selector watches the Cadence loop's descriptor beside
every other::

    import cadence.asyncio

    cadence.asyncio.run(main())                 # or asyncio.run(main(), loop_factory=...) (3.12+)

:class:`VirtualEventLoop` is the same loop on a virtual clock, for tests: time moves only when
nothing can run (no ready callback, no I/O ready now, no executor job in flight), and then jumps
to the next timer, so ``await asyncio.sleep(3600)`` ends at once at exactly 3600 virtual seconds,
the same on every run. While an executor job (``run_in_executor``, ``asyncio.to_thread``) runs,
or nothing but I/O could wake the loop, it waits in real time, up to ``idle_limit`` seconds, and
then raises :class:`VirtualTimeError` instead of hanging.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import ctypes
import math
import selectors
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

from . import _lib
from ._async import deliver_errors, descriptor
from ._asyncio_selector import Selector
from ._asyncio_timer import Timer
from ._state import finite_seconds
from .errors import RUNNING_OR_THREAD, LoopBusy, check
from .loop import Loop

__all__ = ["EventLoop", "EventLoopPolicy", "VirtualEventLoop", "VirtualTimeError", "run"]
__all__ += ["tolerance"]

T = TypeVar("T")
_MODE = b"default"
_TOLERANCE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "cadence.asyncio.tolerance", default=None
)


class VirtualTimeError(RuntimeError):
    """A :class:`VirtualEventLoop` waited ``idle_limit`` seconds of real time for an executor job
    or for I/O, the only things that could still wake it."""


@contextlib.contextmanager
def tolerance(late: float) -> Iterator[None]:
    """Lets the timers that asyncio arms inside the block (sleeps, timeouts, ``call_later``) fire
    up to ``late`` seconds after their time, never before, so that a Cadence event loop can
    serve several with one wake-up (Foundation's ``Timer.tolerance``, libdispatch's leeway). The
    setting follows the context, as ``contextvars`` do: it holds for the code of the block and
    the tasks it creates, and overrides the loop's own ``tolerance``.

    Raises:
        TypeError: ``late`` is not a number. InvalidArgument (a ValueError): negative, NaN or
            infinite.
    """
    token = _TOLERANCE.set(finite_seconds(late, "cadence.asyncio.tolerance", "late"))
    try:
        yield
    finally:
        _TOLERANCE.reset(token)


class EventLoop(asyncio.SelectorEventLoop):
    """An asyncio event loop whose timers are Cadence's (see the module's description).

    Args:
        loop: the Cadence loop to run on; None (the default) makes a real one, which the event
            loop closes with itself. A loop given is not closed; while the event loop runs, it
            runs that loop (its ``run`` then raises :class:`~cadence.LoopBusy`).
        tolerance: seconds that every timer may fire late unless :func:`tolerance` says
            otherwise, >= 0 and finite; default 0 (each timer at its own time, as servers want).

    Raises:
        TypeError, InvalidArgument: a bad ``tolerance`` (as :func:`tolerance`).
        NotSupported: a virtual ``loop`` (use :class:`VirtualEventLoop`).
    """

    def __init__(self, loop: Loop | None = None, *, tolerance: float = 0.0) -> None:
        super().__init__(Selector(self._select))  # first: a failed loop must still close
        self._owns = False
        try:
            self._tolerance = finite_seconds(tolerance, type(self).__name__, "tolerance")
            if not isinstance(getattr(self, "_ready", None), collections.deque):
                raise RuntimeError("cadence.asyncio needs asyncio's ready queue, missing here")
            self._owns = loop is None
            self.cadence: Loop = self._make_cadence() if loop is None else loop
            """The Cadence loop under this event loop: its own timers, publishers and
            countdowns run on the asyncio thread beside asyncio's."""
            self._state = self.cadence._state
            self._schedule = self.cadence.schedule
            self._fd = self._watch()
        except BaseException:
            self.close()
            raise

    def _make_cadence(self) -> Loop:
        return Loop()

    def _watch(self) -> int | None:
        fd = descriptor(self._state, type(self).__name__)
        self._selector._inner.register(fd, selectors.EVENT_READ)  # type: ignore[attr-defined]
        return fd

    def time(self) -> float:
        """The clock of asyncio's loops, ``time.monotonic()`` (CLOCK_MONOTONIC, in seconds),
        which is also the clock that Cadence's timers keep in nanoseconds: a ``call_at(when)``
        never runs before ``time.monotonic()`` reads ``when``. (Cadence's own API reports the same
        clock as seconds since the epoch: :meth:`cadence.Loop.now`.)"""
        return time.monotonic()

    def call_later(  # type: ignore[override]  # typeshed's TypeVarTuple form, same arguments
        self,
        delay: float,
        callback: Callable[..., object],
        *args: Any,
        context: contextvars.Context | None = None,
    ) -> asyncio.TimerHandle:
        """Calls ``callback(*args)`` ``delay`` seconds from now (:meth:`time`), never before, up to
        the tolerance in force late; ``asyncio.sleep`` comes here.

        Raises:
            TypeError: ``delay`` is None or not a number. ValueError: ``delay`` is NaN.
            RuntimeError: the loop is closed.
        """
        if delay is None:
            raise TypeError("call_later: delay must be a number of seconds, got None")
        now = self.time()
        when = now + delay
        return self._arm(when, when - now, callback, args, context)  # one clock read, a float

    def call_at(  # type: ignore[override]  # typeshed's TypeVarTuple form, same arguments
        self,
        when: float,
        callback: Callable[..., object],
        *args: Any,
        context: contextvars.Context | None = None,
    ) -> asyncio.TimerHandle:
        """Calls ``callback(*args)`` at ``when`` (this loop's :meth:`time`), never before, up to
        the tolerance in force late; every asyncio timeout comes here.

        Raises:
            TypeError: ``when`` is None or not a number. ValueError: ``when`` is NaN.
            RuntimeError: the loop is closed.
        """
        if when is None:
            raise TypeError("when cannot be None")
        return self._arm(when, when - self.time(), callback, args, context)

    def _arm(
        self,
        when: float,
        delay: float,
        callback: Callable[..., object],
        args: tuple[Any, ...],
        context: contextvars.Context | None,
    ) -> Timer:
        """A timer handle for ``when``, ``delay`` seconds from now, on a Cadence one-shot."""
        if self._closed:  # type: ignore[attr-defined]  # BaseEventLoop's, as is_closed() reads
            raise RuntimeError("Event loop is closed")
        if delay != delay:
            raise ValueError(f"call_at: when must be a number of seconds, got {when!r}")
        timer = Timer(when, callback, args, self, context)
        if delay < math.inf:  # an infinite wait has no timer, as it has no end
            late = _TOLERANCE.get()
            if late is None:
                late = self._tolerance
            if delay < 0.0:
                delay = 0.0
            # The keyword only when needed: passing it costs on every call.
            timer._cadence = (
                self._schedule(delay, timer, tolerance=late)
                if late
                else self._schedule(delay, timer)
            )
        return timer

    def run_forever(self) -> None:
        """Runs the event loop until ``stop()`` (asyncio's), and the Cadence loop with it.

        Raises:
            LoopBusy: the Cadence loop is run, attached or threaded elsewhere.
        """
        if not self._state.claim():
            raise LoopBusy(context=f"{type(self).__name__}.run_forever", detail=RUNNING_OR_THREAD)
        try:
            super().run_forever()
        finally:
            self._state.release()

    def close(self) -> None:
        """Closes the event loop (asyncio's), then the Cadence loop if the event loop made it."""
        super().close()
        if self._owns:
            self.cadence.close()

    def _select(self, inner: selectors.BaseSelector, timeout: float | None) -> list[Any]:
        """Asyncio's select: waits for I/O or the Cadence loop's descriptor; a readable
        descriptor is a pass, whose due timers join the ready queue."""
        events = inner.select(timeout)
        for index, (key, _) in enumerate(events):
            if key.fd == self._fd:
                del events[index]
                self._pass()
                break
        return events

    def _pass(self) -> None:
        code = _lib.lib.cadence_loop_run_pass(self._state.handle, _MODE)
        deliver_errors(self._state, self, self.cadence)
        check(code, type(self).__name__)


class _Job:
    """An executor job of a :class:`VirtualEventLoop`, counted from its submission until both its
    thread is done with it (or it was cancelled before it started) and its asyncio future is
    done: a thread's result reaches the loop only after the function returns."""

    __slots__ = ("_args", "_func", "_future_done", "_loop", "_state")

    def __init__(self, loop: VirtualEventLoop, func: Callable[..., Any], args: tuple[Any, ...]):
        self._loop, self._func, self._args = loop, func, args
        self._state, self._future_done = "queued", False

    def __call__(self) -> Any:
        """Runs the job on the executor's thread, unless it was cancelled before it started."""
        with self._loop._jobs_lock:
            if self._state != "queued":
                return None
            self._state = "running"
        try:
            return self._func(*self._args)
        finally:
            with self._loop._jobs_lock:
                self._state = "finished"
                ended = self._future_done  # cancelled while it ran: nothing else will count it
                if ended:
                    self._loop._jobs -= 1
            if ended:
                with contextlib.suppress(RuntimeError):  # a closed loop has nothing to wake
                    self._loop.call_soon_threadsafe(_nothing)

    def settle(self, _: asyncio.Future[Any]) -> None:
        """The asyncio future is done (on the loop's thread): the job ends now, unless its
        thread still runs it."""
        with self._loop._jobs_lock:
            self._future_done = True
            if self._state == "queued":
                self._state = "abandoned"  # cancelled before it started: it never will
            if self._state != "running":
                self._loop._jobs -= 1


def _nothing() -> None:
    """Wakes the loop's select (a job ended)."""


class VirtualEventLoop(EventLoop):
    """:class:`EventLoop` on a virtual clock, for tests (see the module's description): its
    :meth:`time` starts at 0 and moves only to the next timer, once nothing can run.

    Args:
        tolerance: as for :class:`EventLoop`; with tolerance, the clock jumps to the coalesced
            wake-up.
        idle_limit: seconds of real time to wait for an executor job or for I/O when only they
            could wake the loop, > 0; then :class:`VirtualTimeError`. Default 30.

    Raises:
        TypeError, InvalidArgument: a bad ``tolerance`` or ``idle_limit``.
    """

    def __init__(self, *, tolerance: float = 0.0, idle_limit: float = 30.0) -> None:
        self._jobs, self._jobs_lock = 0, threading.Lock()
        super().__init__(None, tolerance=tolerance)
        try:
            self._idle_limit = finite_seconds(
                idle_limit, "VirtualEventLoop", "idle_limit", positive=True
            )
        except BaseException:
            self.close()
            raise

    def _make_cadence(self) -> Loop:
        return Loop.virtual()

    def time(self) -> float:
        """The virtual clock, in seconds from 0 (:meth:`cadence.Loop.now` of :attr:`cadence`)."""
        return self.cadence.now()

    def _watch(self) -> None:
        return None  # a virtual clock has no descriptor: the select below moves it

    def run_in_executor(  # type: ignore[override]  # typeshed's TypeVarTuple form
        self, executor: Any, func: Callable[..., T], *args: Any
    ) -> asyncio.Future[T]:
        """asyncio's, counting the job until it has run: time stands still meanwhile."""
        job = _Job(self, func, args)
        with self._jobs_lock:
            self._jobs += 1
        try:
            future = super().run_in_executor(executor, job)
        except BaseException:
            with self._jobs_lock:
                self._jobs -= 1
            raise
        future.add_done_callback(job.settle)
        return future

    def _select(self, inner: selectors.BaseSelector, timeout: float | None) -> list[Any]:
        """Returns the I/O ready now; with nothing to run, moves the clock to the next timer,
        whose callbacks join the ready queue, or waits in real time for what only real time
        brings (an executor job, I/O)."""
        events = inner.select(0)
        if events or timeout == 0:
            return events
        limit = time.monotonic() + self._idle_limit
        while True:
            if self._jobs == 0 and (wait := self._next_timer()) < math.inf:
                code = _lib.lib.cadence_loop_run(self._state.handle, _MODE, wait)
                deliver_errors(self._state, self, self.cadence)
                check(code, "VirtualEventLoop")
                return []
            events = inner.select(max(0.0, min(limit - time.monotonic(), 0.05)))
            if events:
                return events
            if time.monotonic() >= limit:
                waiting = "an executor job" if self._jobs else "I/O (no timer is armed)"
                raise VirtualTimeError(
                    f"VirtualEventLoop: waited {self._idle_limit:g} s of real time for {waiting}, "
                    "which alone could wake it (idle_limit)"
                )

    def _next_timer(self) -> float:
        out = ctypes.c_double()
        check(_lib.lib.cadence_loop_timeout(self._state.handle, out), "VirtualEventLoop")
        return out.value


class EventLoopPolicy(asyncio.DefaultEventLoopPolicy):
    """An event loop policy whose ``new_event_loop()`` makes an :class:`EventLoop` (or, with
    ``virtual``, a :class:`VirtualEventLoop`), for code that makes its loops that way
    (``asyncio.set_event_loop_policy(cadence.asyncio.EventLoopPolicy())``)."""

    def __init__(self, *, virtual: bool = False, tolerance: float = 0.0) -> None:
        super().__init__()
        self._virtual, self._tolerance = virtual, tolerance

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        """A new Cadence event loop."""
        if self._virtual:
            return VirtualEventLoop(tolerance=self._tolerance)
        return EventLoop(tolerance=self._tolerance)


def run(
    main: Coroutine[Any, Any, T],
    *,
    virtual: bool = False,
    tolerance: float = 0.0,
    debug: bool | None = None,
) -> T:
    """``asyncio.run(main)`` on a new :class:`EventLoop` (or, with ``virtual``, a
    :class:`VirtualEventLoop`) with ``tolerance``, closed at the end: asyncio's ``Runner`` with
    a loop factory on 3.11+, ``asyncio.run`` under an :class:`EventLoopPolicy` before.

    Raises:
        whatever ``main`` raises; :class:`VirtualTimeError` on a virtual loop that only real
        time could wake and did not; TypeError, InvalidArgument for a bad ``tolerance``.
    """
    factory = VirtualEventLoop if virtual else EventLoop
    if sys.version_info >= (3, 11):
        with asyncio.Runner(
            debug=debug, loop_factory=lambda: factory(tolerance=tolerance)
        ) as runner:
            result: T = runner.run(main)
            return result
    policy = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(EventLoopPolicy(virtual=virtual, tolerance=tolerance))
    try:
        return asyncio.run(main, debug=bool(debug))
    finally:
        asyncio.set_event_loop_policy(policy)
