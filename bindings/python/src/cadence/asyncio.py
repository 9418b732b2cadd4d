"""asyncio on Cadence: an event loop whose every timer is a Cadence timer, and its virtual twin.

:class:`EventLoop` is asyncio's selector event loop with one change: ``call_at`` and
``call_later``, so every ``asyncio.sleep``, ``asyncio.timeout``, ``wait_for``,
``Condition.wait_for`` timeout and library timeout, are Cadence one-shots: nanosecond
deadlines, never early (asyncio's own loop runs a timer up to its clock resolution early), in
fire-date order with ties in scheduling order, freed by ``TimerHandle.cancel()`` before anything
can fire them or look (starts and cancels reach Cadence together, once per loop turn: the turn's
select, and any use of :attr:`EventLoop.cadence`, hands them over first), and coalesced by
tolerance when the program allows it (:func:`tolerance`). I/O, subprocesses,
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
import contextlib
import inspect
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

from ._asyncio_loop import TOLERANCE, EventLoop
from ._asyncio_run import check, run_made
from ._asyncio_virtual import VirtualEventLoop, VirtualTimeError
from ._checks import finite_seconds

__all__ = ["EventLoop", "EventLoopPolicy", "VirtualEventLoop", "VirtualTimeError", "run"]
__all__ += ["tolerance"]

T = TypeVar("T")


@contextlib.contextmanager
def tolerance(seconds: float) -> Iterator[None]:
    """Lets the timers that asyncio arms inside the block (sleeps, timeouts, ``call_later``) fire
    up to ``seconds`` after their time, never before, so that a Cadence event loop can
    serve several with one wake-up (Foundation's ``Timer.tolerance``, libdispatch's leeway). The
    setting follows the context, as ``contextvars`` do: it holds for the code of the block and
    the tasks it creates, and overrides the loop's own ``tolerance``. Only Cadence's event loops
    read it: under another event loop (asyncio's own has no tolerance) the block runs as if it
    were not there.

    Raises:
        TypeError: ``seconds`` is not a number. InvalidArgument (a ValueError): negative, NaN or
            infinite.
    """
    token = TOLERANCE.set(finite_seconds(seconds, "cadence.asyncio.tolerance", "seconds"))
    try:
        yield
    finally:
        TOLERANCE.reset(token)


class EventLoopPolicy(asyncio.DefaultEventLoopPolicy):
    """An event loop policy whose ``new_event_loop()`` makes an :class:`EventLoop` (or, with
    ``virtual``, a :class:`VirtualEventLoop` with ``idle_limit`` and ``time_limit``), for code
    that makes its loops that way
    (``asyncio.set_event_loop_policy(cadence.asyncio.EventLoopPolicy())``).

    Raises:
        TypeError, InvalidArgument: a bad number, as for the loops (at once, not at the first
            loop); TypeError: ``idle_limit`` or ``time_limit`` without ``virtual``.
    """

    def __init__(
        self,
        *,
        virtual: bool = False,
        tolerance: float = 0.0,
        idle_limit: float | None = None,
        time_limit: float | None = None,
    ) -> None:
        super().__init__()
        where = "EventLoopPolicy"
        if not isinstance(virtual, bool):
            raise TypeError(f"{where}: virtual must be True or False, got {virtual!r}")
        finite_seconds(tolerance, where, "tolerance")
        limits: dict[str, float] = {}
        if idle_limit is not None:
            limits["idle_limit"] = finite_seconds(idle_limit, where, "idle_limit", positive=True)
        if time_limit is not None:
            limits["time_limit"] = finite_seconds(time_limit, where, "time_limit", positive=True)
        if limits and not virtual:
            raise TypeError(
                f"{where}: {' and '.join(limits)} "
                f"{'apply' if len(limits) > 1 else 'applies'} to a virtual loop only"
            )
        self._virtual, self._tolerance, self._limits = virtual, tolerance, limits

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        """A new Cadence event loop."""
        if self._virtual:
            return VirtualEventLoop(tolerance=self._tolerance, **self._limits)
        return EventLoop(tolerance=self._tolerance)


def run(
    main: Coroutine[Any, Any, T],
    *,
    virtual: bool = False,
    tolerance: float = 0.0,
    idle_limit: float | None = None,
    time_limit: float | None = None,
    debug: bool | None = None,
) -> T:
    """``asyncio.run(main)`` on a new :class:`EventLoop` (or, with ``virtual``, a
    :class:`VirtualEventLoop` with ``idle_limit`` and ``time_limit``) with ``tolerance``, closed
    at the end: asyncio's ``Runner`` with a loop factory on 3.11+, asyncio.run's steps on that
    loop before. Nothing process-wide changes (the event loop policy stays as it is), so threads
    may run it at once.

    Raises:
        whatever ``main`` raises; :class:`VirtualTimeError` from a virtual loop that could not go
        on; TypeError, InvalidArgument for a bad number or a limit without ``virtual``;
        RuntimeError, called where an event loop runs; ValueError, ``main`` is not a coroutine
        (as ``asyncio.run``). Refused, ``main`` is closed, never to run.
    """
    try:
        check(main)
        policy = EventLoopPolicy(
            virtual=virtual, tolerance=tolerance, idle_limit=idle_limit, time_limit=time_limit
        )
    except BaseException:
        if inspect.iscoroutine(main):
            main.close()  # never to run: no "never awaited" warning on top of the error
        raise
    return run_made(main, policy.new_event_loop, debug)
