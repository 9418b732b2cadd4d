"""The virtual twin of :mod:`cadence.asyncio`'s event loop, for tests: time moves only when
nothing can run, then jumps to the next timer (see that module's description)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import itertools
import math
import selectors
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from . import _lib
from ._async import deliver_errors
from ._asyncio_loop import MODE, EventLoop, _date
from ._asyncio_pending import raw
from ._asyncio_timer import Timer
from ._checks import finite_seconds
from .errors import check
from .loop import Loop

__all__ = ["VirtualEventLoop", "VirtualTimeError"]

T = TypeVar("T")
_now = _lib.lib.cadence_loop_now


class VirtualTimeError(RuntimeError):
    """A :class:`VirtualEventLoop` could not go on: it waited ``idle_limit`` seconds of real
    time for what only real time brings (an executor job, a subprocess, I/O), or its clock would
    pass ``time_limit``."""


VirtualTimeError.__module__ = "cadence.asyncio"  # where it is imported from, as tracebacks show


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


class _Held:
    """A subprocess's protocol factory whose protocol counts as a job of the loop from when it is
    made until its process has exited or its start failed, once (:meth:`release`)."""

    __slots__ = ("_factory", "_held", "_loop")

    def __init__(self, loop: VirtualEventLoop, factory: Callable[[], Any]) -> None:
        self._loop, self._factory, self._held = loop, factory, False

    def __call__(self) -> Any:
        protocol = self._factory()
        exited = protocol.process_exited

        def process_exited() -> None:
            self.release()
            exited()

        protocol.process_exited = process_exited
        with self._loop._jobs_lock:
            self._loop._jobs += 1
            self._held = True
        return protocol

    def release(self) -> None:
        """Ends the count, if it is still held."""
        with self._loop._jobs_lock:
            if self._held:
                self._held = False
                self._loop._jobs -= 1


def _nothing() -> None:
    """Wakes the loop's select (a job ended)."""


class VirtualEventLoop(EventLoop):
    """:class:`EventLoop` on a virtual clock, for tests (see the module's description): its
    :meth:`time` starts at 0 and moves only to the next timer, once nothing can run.

    Args:
        tolerance: as for :class:`EventLoop`; with tolerance, the clock jumps to the coalesced
            wake-up.
        idle_limit: seconds of real time to wait for what only real time brings (an executor
            job, a subprocess, I/O) when nothing else could wake the loop, > 0; then
            :class:`VirtualTimeError`. Default 30.
        time_limit: virtual seconds the clock may reach, > 0, or None (the default) for no
            limit; a jump past it raises :class:`VirtualTimeError` (a test whose program waits for
            ever beside a periodic task would otherwise run on without end).

    Raises:
        TypeError, InvalidArgument: a bad ``tolerance``, ``idle_limit`` or ``time_limit``.
    """

    def __init__(
        self, *, tolerance: float = 0.0, idle_limit: float = 30.0, time_limit: float | None = None
    ) -> None:
        self._jobs, self._jobs_lock = 0, threading.Lock()
        self._wait = 0.0  # of the run asked for (_run)
        #: The latest of the clock's readings and the dates of the timers fired (time()).
        self._reached = 0.0
        #: Where in the ready queue a run's timers begin until :meth:`_reach` has read them
        #: (-1: done); an interrupt that skips it leaves it for the next select.
        self._unreached = -1
        super().__init__(None, tolerance=tolerance)
        try:
            where = "VirtualEventLoop"
            self._idle_limit = finite_seconds(idle_limit, where, "idle_limit", positive=True)
            self._time_limit = (
                math.inf
                if time_limit is None
                else finite_seconds(time_limit, where, "time_limit", positive=True)
            )
        except BaseException:
            self.close()
            raise

    def _make_cadence(self) -> Loop:
        return Loop.virtual()

    def time(self) -> float:
        """The virtual clock, in seconds from 0 (:meth:`cadence.Loop.now` of :attr:`cadence`),
        and never less than the date of a timer that has fired: the clock counts whole
        nanoseconds, and a date a double's rounding past one (``0.003 + 0.006``, just past 0.009)
        fires at that nanosecond, so without this a loop that sleeps until ``time()`` reaches
        such a date would sleep again for ever at the same instant. After :meth:`close`, the
        last reading."""
        handle = raw(self._state)
        if not handle:
            return self._reached
        # Read without a flush (as Loop.now would make): call_later reads it for every timer.
        check(_now(handle, out := ctypes.c_double()), "VirtualEventLoop.time")
        if out.value > self._reached:
            self._reached = out.value
        return self._reached

    def _watch(self) -> None:
        return None  # a virtual clock has no descriptor: the select below moves it

    def run_in_executor(  # type: ignore[override]  # typeshed's TypeVarTuple form
        self, executor: Any, func: Callable[..., T], *args: Any
    ) -> asyncio.Future[T]:
        """asyncio's, counting the job until it has run: time stands still meanwhile. A job of
        the default executor or another thread pool counts until its thread is done with it
        (it may still call into the loop after a cancel); one of any other executor (a process
        pool, whose jobs are pickled and reach the loop only through their result) until its
        future is done.

        Raises:
            TypeError: in debug mode, ``func`` is a coroutine or a coroutine function, or not
                callable (asyncio's checks, which the job's wrapper would hide).
        """
        if self.get_debug():  # asyncio's own check, on the function rather than its wrapper
            self._check_callback(func, "run_in_executor")  # type: ignore[attr-defined]
        threaded = executor is None or isinstance(executor, concurrent.futures.ThreadPoolExecutor)
        job = _Job(self, func, args)
        if not threaded:
            job._state = "finished"  # nothing to wait for but the future
        with self._jobs_lock:
            self._jobs += 1
        try:
            if threaded:  # the job calls func with its arguments
                future = super().run_in_executor(executor, job)
            else:
                future = super().run_in_executor(executor, func, *args)
        except BaseException:
            with self._jobs_lock:
                self._jobs -= 1
            raise
        future.add_done_callback(job.settle)
        return future

    async def shutdown_default_executor(self, *timeout: float | None) -> None:
        """Shuts the default executor down (asyncio's), holding the clock still until its
        threads have joined: they join in real time, and the timeout asyncio gives them (3.12+:
        300 s in ``asyncio.run``) would otherwise pass at once on this clock (asyncio then warns
        that they did not join, and leaves them)."""
        with self._jobs_lock:
            self._jobs += 1
        try:
            await super().shutdown_default_executor(*timeout)
        finally:
            with self._jobs_lock:
                self._jobs -= 1

    async def subprocess_exec(
        self, protocol_factory: Callable[[], Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        """asyncio's, holding the clock still while the process runs (until its protocol's
        ``process_exited``, or the failure of its start): only real time moves a process."""
        held = _Held(self, protocol_factory)
        try:
            return await super().subprocess_exec(held, *args, **kwargs)
        except BaseException:
            held.release()  # never started (no such program, a bad cwd...): nothing will exit
            raise

    async def subprocess_shell(
        self, protocol_factory: Callable[[], Any], cmd: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        """asyncio's, holding the clock still while the process runs, as :meth:`subprocess_exec`."""
        held = _Held(self, protocol_factory)
        try:
            return await super().subprocess_shell(held, cmd, **kwargs)
        except BaseException:
            held.release()
            raise

    def _select(self, inner: selectors.BaseSelector, timeout: float | None) -> list[Any]:
        """Returns the I/O ready now, and fires the timers due at the clock's reading (as
        asyncio's loop runs its due timers in every iteration, whatever else is ready); with
        nothing to run, moves the clock to the next timer, whose callbacks join the ready queue,
        or waits in real time for what only real time brings (an executor job, a subprocess,
        I/O)."""
        if self._unreached >= 0:  # an interrupt cut the last pass before its _reach
            self._reach(self._unreached)
        events = inner.select(0)
        self._flush()  # the pending starts and cancels first: the next timer may be among them
        if self._next_timer() == 0:
            self._run(0.0)
        if events or timeout == 0 or self._pass_due:
            return events
        deadline = time.monotonic() + self._idle_limit
        while True:
            if self._jobs == 0 and (wait := self._next_timer()) < math.inf:
                date, limit = self.time() + wait, self._time_limit
                # The clock counts whole nanoseconds, and a sum of doubles may land a rounding
                # past the limit (0.2 + 0.1 against 0.3): a date within that of it is at it.
                if date > limit and not math.isclose(date, limit, rel_tol=1e-15, abs_tol=1e-9):
                    raise VirtualTimeError(
                        f"VirtualEventLoop: the next timer is at {date!r} s, past time_limit "
                        f"{limit:g} s (a program that waits for ever beside a periodic task?)"
                    )
                self._run(wait)
                return []
            events = inner.select(max(0.0, min(deadline - time.monotonic(), 0.05)))
            if events:
                return events
            if time.monotonic() >= deadline:
                raise VirtualTimeError(
                    f"VirtualEventLoop: waited {self._idle_limit:g} s of real time for "
                    f"{self._waiting_for(inner)}, which alone could wake it (idle_limit)"
                )

    def _run(self, wait: float) -> None:
        """Asks for this iteration's pass (``EventLoop._process_events``): a run of the virtual
        Cadence loop to the timer due ``wait`` seconds on (0: what is due at the clock's
        reading). The wait is a whole number of nanoseconds read as a double, which C rounds up
        (never early): half a nanosecond less reaches the timer's date exactly (0.067 s would
        run to 67,000,001 ns)."""
        nanoseconds = round(wait * 1e9)
        self._wait = (nanoseconds - 0.5) / 1e9 if nanoseconds else 0.0
        self._pass_due = True

    def _pass(self) -> None:
        """The run that :meth:`_run` asked for."""
        ready = self._unreached = len(self._ready)  # type: ignore[attr-defined]  # see EventLoop
        try:  # a SIGINT there: run_forever's handler
            code = _lib.lib.cadence_loop_run(raw(self._state), MODE, self._wait)
        finally:  # also when an interrupt (Ctrl-C) is raised as the run returns: the timers it
            self._reach(ready)  # queued still never see time() before their dates
        deliver_errors(self._state, self, self.cadence)
        check(code, "VirtualEventLoop")

    def _reach(self, ready: int) -> None:
        """Moves :meth:`time`'s floor to the latest date of the timers that joined the ready
        queue from position ``ready`` on (those a run fired). May be repeated (the next select
        does it when an interrupt came first: the queue only grows until then)."""
        # Copied in one step (C code, no thread switch): other threads append meanwhile.
        made = list(itertools.islice(self._ready, ready, None))  # type: ignore[attr-defined]
        for handle in made:
            if type(handle) is Timer and not handle._cancelled:
                date = _date(handle._when)
                if date > self._reached:
                    self._reached = date
        self._unreached = -1

    def _waiting_for(self, inner: selectors.BaseSelector) -> str:
        armed = self.cadence.armed_timer_count
        if self._jobs:  # a job that waits for one of the timers holds the clock they need
            return "an executor job or a subprocess" + (
                f", which holds the clock still while {armed} timer(s) are armed: a timeout "
                "around it (wait_for(process.wait(), 5)) cannot fire before it ends, and a job "
                "that waits for one of them (run_coroutine_threadsafe(...).result() of a "
                "coroutine that sleeps) never ends"
                if armed
                else ""
            )
        if armed:
            return (  # its date saturated to the clock's end, where no jump can take it
                f"{armed} timer(s) due only at the virtual clock's end (2^64 - 1 ns, "
                "about 584 years: never)"
            )
        if len(inner.get_map()) > 1:  # more than asyncio's own self-pipe
            return "I/O (no timer is armed)"
        return "nothing: no timer is armed and no job, subprocess or I/O runs (a deadlock?)"

    def _next_timer(self) -> float:
        out = ctypes.c_double()
        check(_lib.lib.cadence_loop_timeout(raw(self._state), out), "VirtualEventLoop")
        return out.value
