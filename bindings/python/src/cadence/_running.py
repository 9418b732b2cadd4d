"""Running a loop from Python on the main thread so that Ctrl-C is seen, and the SIGINT handler
that stops a run.

CPython runs signal handlers only between bytecodes of the main thread, and ``cadence_loop_run``
sleeps in libuv, which retries its wait after a signal. So while the main thread is inside C, the
signal must also stop the C loop: CPython writes every signal it handles to the file descriptor
given to :func:`signal.set_wakeup_fd`, and a watcher thread reading it calls ``cadence_loop_stop``
(safe from any thread). The C call returns, CPython runs the Python handler, and the run either
ends (the handler stopped or interrupted it) or goes on for the time left. When the wake-up fd is
already taken (asyncio sets one while its loop runs), the run falls back to slices of at most
``step`` seconds, between which pending handlers run. A run until idle (``seconds`` None) goes
through the watcher on a virtual loop too (a referenced repeating timer keeps it going without
end); it cannot be sliced, so with the wake-up fd taken it is one C call.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

from . import _lib, _registry
from .errors import check


def _now(state: _registry.LoopState) -> float:
    out = ctypes.c_double()
    check(int(_lib.lib.cadence_loop_now(state.handle, ctypes.byref(out))), "Loop.now")
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


class _SignalWatcher:
    """The reading end of the wake-up fd, on a daemon thread of its own (one per process), and
    the main thread's run in C that a signal must stop."""

    def __init__(self) -> None:
        self.pid = os.getpid()  # a forked child needs a watcher thread of its own
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.write_fd, False)  # set_wakeup_fd requires it
        #: The run inside ``cadence_loop_run`` on the main thread (the innermost), if any.
        self.current: _registry.LoopState | None = None
        #: Counts the main thread's returns from ``cadence_loop_run``.
        self.returns = 0
        #: Counts the signals read, so that a run until idle knows whether C returned for one.
        self.signals = 0
        threading.Thread(target=self._watch, name="cadence-signals", daemon=True).start()

    def _watch(self) -> None:
        while True:
            try:
                if not os.read(self.read_fd, 512):
                    return
            except OSError:
                return
            self.signals += 1
            state, returns = self.current, self.returns
            # Until that C call returns: a signal that came just before it started would
            # otherwise wait for the end of the run.
            while state is not None and self.current is state and self.returns == returns:
                _lib.lib.cadence_loop_stop(state.handle)
                time.sleep(0.001)

    def run(self, state: _registry.LoopState, mode: bytes, seconds: float | None) -> int:
        """Runs the C loop for ``seconds`` of its clock (until idle if None), going on after a
        signal whose handler did not stop the run; returns the C code."""
        if seconds is None:
            return self._run_until_idle(state, mode)
        if not (math.isfinite(seconds) and seconds > 0):
            return int(_lib.lib.cadence_loop_run(state.handle, mode, seconds))  # C judges it
        end = _now(state) + seconds
        left = seconds
        while True:
            outer, self.current = self.current, state
            try:
                # Checked once the watcher can see this run: a handler that ran before stopped it.
                if state.stopping:
                    return 0
                code = int(_lib.lib.cadence_loop_run(state.handle, mode, left))
            finally:
                self.returns += 1
                self.current = outer
            if code != 0 or state.stopping:
                return code
            left = end - _now(state)
            if left <= 0:
                return 0

    def _run_until_idle(self, state: _registry.LoopState, mode: bytes) -> int:
        while True:
            outer, self.current = self.current, state
            try:
                if state.stopping:
                    return 0
                signals = self.signals
                code = int(_c_run_until_idle(state.handle, mode))
            finally:
                self.returns += 1
                self.current = outer
            # Idle, unless the watcher stopped the C call for a signal whose handler let the
            # run go on (then it goes on; an idle loop returns from the next call at once).
            if code != 0 or state.stopping or self.signals == signals:
                return code


_c_run_until_idle = _lib.lib.cadence_loop_run_until_idle
_watcher: _SignalWatcher | None = None


@contextlib.contextmanager
def _signals_wake() -> Iterator[_SignalWatcher | None]:
    """Points CPython's wake-up fd at the watcher for the ``with`` block; yields None (and
    changes nothing) if another wake-up fd is set or signals cannot be set up here."""
    global _watcher
    if _watcher is None or _watcher.pid != os.getpid():
        _watcher = _SignalWatcher()
    try:
        previous = signal.set_wakeup_fd(_watcher.write_fd, warn_on_full_buffer=False)
    except ValueError:  # not the main interpreter
        yield None
        return
    if previous not in (-1, _watcher.write_fd):  # someone else's (asyncio's): leave it theirs
        signal.set_wakeup_fd(previous)
        yield None
        return
    try:
        yield _watcher
    finally:
        signal.set_wakeup_fd(previous)


def run(state: _registry.LoopState, mode: bytes, seconds: float | None, step: float) -> int:
    """One :meth:`Loop.run` in C, or :meth:`Loop.run_until_idle` when ``seconds`` is None. On
    the main thread a real loop is woken by signals (see the module's notes), or runs in slices
    of ``step`` seconds when the wake-up fd is taken; a virtual loop does not sleep (but may run
    until idle without end), and other threads get no signals."""
    main = threading.current_thread() is threading.main_thread()
    if not main or (state.virtual and seconds is not None):
        if seconds is None:
            return int(_c_run_until_idle(state.handle, mode))
        return int(_lib.lib.cadence_loop_run(state.handle, mode, seconds))
    with _signals_wake() as watcher:
        if watcher is not None:
            return watcher.run(state, mode, seconds)
    if seconds is None:
        return int(_c_run_until_idle(state.handle, mode))
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
