"""Running a loop from Python (the part of :meth:`Loop.run <cadence.Loop.run>` and
:meth:`Loop.run_until_idle <cadence.Loop.run_until_idle>` behind their checks), and Ctrl-C
during a run.

On the main thread a real loop is driven from Python: ``poll`` on the loop's descriptor, then
one non-blocking pass (``cadence_loop_run_pass``) each time it is readable (a run until idle asks
``cadence_loop_alive`` after each pass). The descriptor wakes at the engine's nanosecond
deadline, so the poll's timeout only bounds the end of the run; a signal interrupts the poll
(PEP 475), where the SIGINT handler raises KeyboardInterrupt at once: no wake-up fd, no thread.
Everywhere else one C call runs the loop: other threads get no signals, and a virtual loop has
no descriptor (and never sleeps); on the main thread, Ctrl-C then stops a virtual loop's run at
the next callback.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import select
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from . import _cancels, _lib, _state
from ._async import descriptor
from ._state import LoopState
from .errors import RUNNING_OR_THREAD, LoopBusy, check

_lib_ = _lib.lib
#: The state of the loop whose run the main thread drives, for the SIGINT handler: which loop a
#: Ctrl-C must stop is a fact about Python's main thread, which C does not know.
_main_run: list[LoopState] = []


def run(state: LoopState, name: bytes, seconds: float | None, where: str) -> None:
    """Runs the loop of ``state`` in the mode ``name`` on this thread, for ``seconds`` (None:
    until idle), as :meth:`Loop.run <cadence.Loop.run>` documents; raises what a callback raised,
    then C's error.

    Raises:
        LoopBusy: the loop is running already (any thread), or has a thread of its own.
    """
    if not state.claim():
        raise LoopBusy(context=where, detail=RUNNING_OR_THREAD)
    main = threading.current_thread() is threading.main_thread()
    try:
        with sigint_stops_run(state) if main else contextlib.nullcontext():
            if seconds is None and (state.virtual or not main):
                code = _lib_.cadence_loop_run_until_idle(state.handle, name)
            elif seconds is not None and (state.virtual or not main or not seconds > 0):
                code = _lib_.cadence_loop_run(state.handle, name, seconds)
            else:
                code = drive(state, name, seconds, where)
    finally:
        state.release()
    state.raise_errors()
    check(code, where, state)


def drive(state: LoopState, mode: bytes, seconds: float | None, where: str) -> int:
    """The main thread's run of a real loop: poll and one pass at a time (see the module's
    notes); with no ``seconds``, until idle."""
    watch = select.poll()
    watch.register(descriptor(state, where), select.POLLIN)
    end = math.inf if seconds is None else time.monotonic() + seconds
    alive = ctypes.c_int(1)
    while True:
        _cancels.flush()
        code = int(_lib_.cadence_loop_run_pass(state.handle, mode))
        if code == 0 and seconds is None:
            code = _lib_.cadence_loop_alive(state.handle, mode, alive)
        if code != 0 or state.stopping or not alive.value:
            return code
        left = end - time.monotonic()
        if left <= 0:
            return 0
        # Milliseconds, rounded up by CPython; poll takes at most 2**31 - 1 (24.8 days).
        watch.poll(None if left == math.inf else min(left, 86400.0) * 1000)


class Glued:
    """A SIGINT handler in Python while the main thread runs a loop: :data:`on_sigint` (for
    Python's default one) or another (``asyncio.Runner``'s, whose second Ctrl-C raises
    KeyboardInterrupt, or the program's own), called as it is.

    CPython runs signal handlers between bytecodes, also in the binding's C callbacks, outside
    their ``try`` (where ctypes would print "Exception ignored" and drop it). So when the
    interrupted frame is one of them (``_state.GLUE``) what the handler raises is recorded for
    the run, which it stops after the pass, as a callback's exception; anywhere else (a user
    callback, the poll between passes) it is raised at once.
    """

    __slots__ = ("handler",)

    def __init__(self, handler: Callable[[int, FrameType | None], Any]) -> None:
        self.handler = handler

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if frame is not None and frame.f_code in _state.GLUE and _main_run:
            try:
                self.handler(signum, frame)
            except BaseException as error:  # noqa: BLE001 - raised after the pass instead
                _main_run[-1].fail(error)
            return
        self.handler(signum, frame)


#: The SIGINT handler while the main thread runs a loop and SIGINT had Python's default one.
on_sigint = Glued(signal.default_int_handler)


@contextlib.contextmanager
def sigint_stops_run(state: LoopState) -> Iterator[None]:
    """Installs :func:`on_sigint` for the block (on the main thread) when SIGINT has Python's
    default handler, or wraps another handler in Python (as ``asyncio.Runner``'s) in
    :class:`Glued`; puts the handler back after, unless the block changed it."""
    previous = signal.getsignal(signal.SIGINT)
    installed: Glued | None = None
    if previous is signal.default_int_handler:
        installed = on_sigint
    elif callable(previous) and not isinstance(previous, Glued):
        installed = Glued(previous)
    if installed is not None:
        try:
            signal.signal(signal.SIGINT, installed)
        except ValueError:  # not the main interpreter
            installed = None
    _main_run.append(state)
    try:
        yield
    finally:
        _main_run.pop()
        if installed is not None and signal.getsignal(signal.SIGINT) is installed:
            signal.signal(signal.SIGINT, previous)
