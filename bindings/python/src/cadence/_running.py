"""Running a loop from Python: in slices on the main thread, so that Ctrl-C is seen, and the SIGINT
handler that stops a run."""

from __future__ import annotations

import contextlib
import ctypes
import math
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from . import _lib, _registry
from .errors import check


def _now(state: _registry.LoopState) -> float:
    out = ctypes.c_double()
    check(int(_lib.lib.cadence_loop_now(state.handle, ctypes.byref(out))), "Loop.now()")
    return out.value


def run_in_slices(state: _registry.LoopState, mode: bytes, seconds: float, step: float) -> int:
    """Runs the C loop for ``seconds`` of its clock as calls of at most ``step`` seconds each;
    returns the C code. Stops early on :meth:`Loop.stop`, SIGINT or a failed callback.

    The engine keeps every timer where it was between calls (grids, fire dates, the order of
    ties), and each call starts with a pass that fires what fell due in between; the end of a
    call fires what is due then, which may be earlier within a timer's tolerance than the
    coalesced wake-up it would otherwise have waited for.
    """
    if not (math.isfinite(seconds) and seconds > step):
        return int(_lib.lib.cadence_loop_run(state.handle, mode, seconds))  # C judges bad values
    end = _now(state) + seconds
    while True:
        code = int(_lib.lib.cadence_loop_run(state.handle, mode, step))
        # A stop() from another thread between two calls reaches C as a no-op: the flag, read
        # here, ends the run at the latest after the next call.
        if code != 0 or state.stopping:
            return code
        left = end - _now(state)
        if left <= 0:
            return 0
        step = min(left, step)


def run(state: _registry.LoopState, mode: bytes, seconds: float, step: float) -> int:
    """One :meth:`Loop.run` in C: in slices on the main thread of a real loop, so that signal
    handlers run (a virtual loop does not sleep, and other threads get no signals)."""
    if state.virtual or threading.current_thread() is not threading.main_thread():
        return int(_lib.lib.cadence_loop_run(state.handle, mode, seconds))
    return run_in_slices(state, mode, seconds, step)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    """The SIGINT handler while the main thread is inside :meth:`Loop.run`.

    CPython runs signal handlers between bytecodes, also at the first instruction of a ctypes
    trampoline, where a KeyboardInterrupt would escape every ``try`` and be dropped by ctypes
    ("Exception ignored on calling ctypes callback function"). So in the binding's own code this
    handler only marks the innermost run as interrupted and stops it; ``Loop.run`` then raises
    KeyboardInterrupt. In a user callback, and when no run is in progress, it raises at once,
    as the default handler does.
    """
    runs = _registry.runs_on_this_thread()
    if not runs or _registry.in_user_code():
        raise KeyboardInterrupt
    runs[-1].interrupt()


@contextlib.contextmanager
def sigint_stops_run() -> Iterator[None]:
    """Installs :func:`_on_sigint` for the ``with`` block if this is the main thread and SIGINT
    has Python's default handler (as ``asyncio.Runner`` does); leaves any other handler alone."""
    installed = False
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        try:
            signal.signal(signal.SIGINT, _on_sigint)
            installed = True
        except ValueError:  # not the main interpreter, or signals not set up by Python
            pass
    try:
        yield
    finally:
        if installed and signal.getsignal(signal.SIGINT) is _on_sigint:
            signal.signal(signal.SIGINT, signal.default_int_handler)
