"""Running a loop from Python (``Loop.run``, ``Loop.run_until_idle``), and the SIGINT handler.

On the main thread ``Loop.run`` drives a real loop from Python: ``poll`` on the loop's descriptor,
then one non-blocking pass (``cadence_loop_run_pass``) each time it is readable. The descriptor
wakes at the engine's nanosecond deadline, so the poll's timeout only bounds the end of the run;
and a signal interrupts the poll (PEP 475), where the SIGINT handler raises KeyboardInterrupt at
once: no wake-up fd, no thread. Everywhere else one C call runs the loop: other threads get no
signals, a virtual loop has no descriptor (and never sleeps), and a run until idle needs the
engine's own idle check; on the main thread, Ctrl-C then stops the C call at the next callback.
"""

from __future__ import annotations

import contextlib
import math
import select
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

from . import _async, _lib, _registry

_local = _registry._local


def run(state: _registry.LoopState, mode: bytes, seconds: float | None, call: str) -> int:
    """One :meth:`Loop.run` for ``seconds`` (``math.inf``: until stop), or one
    :meth:`Loop.run_until_idle` when ``seconds`` is None; returns the C code."""
    main = threading.current_thread() is threading.main_thread()
    outer = getattr(_local, "in_c", None)
    _local.in_c = state  # the SIGINT handler must not raise in a trampoline (see _on_sigint)
    try:
        if seconds is None:
            return int(_lib.lib.cadence_loop_run_until_idle(state.handle, mode))
        if state.virtual or not main or not seconds > 0:  # C judges NaN and negative values
            return int(_lib.lib.cadence_loop_run(state.handle, mode, seconds))
        return _drive(state, mode, seconds, call)
    finally:
        _local.in_c = outer


def _drive(state: _registry.LoopState, mode: bytes, seconds: float, call: str) -> int:
    """The main thread's run of a real loop: poll and one pass at a time (see the module's notes).
    ``_local.in_c`` is set only during the passes."""
    watch = select.poll()
    watch.register(_async.descriptor(state, call), select.POLLIN)
    end = time.monotonic() + seconds
    state.wake_mode = mode  # for a stop() from another thread
    try:
        while True:
            _local.in_c = state
            code = int(_lib.lib.cadence_loop_run_pass(state.handle, mode))
            _local.in_c = None
            if code != 0 or state.stopping:
                return code
            left = end - time.monotonic()
            if left <= 0:
                return 0
            # Milliseconds, rounded up by CPython; poll takes at most 2**31 - 1 (24.8 days).
            watch.poll(None if left == math.inf else min(left, 86400.0) * 1000)
    finally:
        state.wake_mode = None


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    """The SIGINT handler while the main thread is inside :meth:`Loop.run`.

    CPython runs signal handlers between bytecodes, also at the first instruction of a ctypes
    trampoline, where a KeyboardInterrupt would escape every ``try`` and be dropped by ctypes
    ("Exception ignored on calling ctypes callback function"). So in the binding's own code inside
    a C call of a run (``_local.in_c``, the innermost run's loop) this handler only records a
    KeyboardInterrupt for that run and stops it, as for a callback's exception; ``Loop.run`` then
    raises it. Anywhere else (a user
    callback, the poll between passes, no run at all) it raises at once, as the default handler.
    """
    state = getattr(_local, "in_c", None)
    if state is None or _registry.in_user_code():
        raise KeyboardInterrupt
    state.fail(KeyboardInterrupt())


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
