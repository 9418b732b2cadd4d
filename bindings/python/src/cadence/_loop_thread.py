"""A loop on a thread of its own (the part of :class:`~cadence.Loop` that starts and stops it)."""

from __future__ import annotations

import atexit
import contextlib
from collections.abc import Iterator
from typing import TypeVar

from . import _checks, _lib
from ._state import LoopState
from .errors import RUNNING_OR_THREAD, LoopBusy, check

__all__ = ["OwnThread"]

_T = TypeVar("_T", bound="OwnThread")
_lib_ = _lib.lib
#: Loops whose own thread runs, held until stop_thread (their callbacks may run meanwhile): not
#: C's state (``LoopState.thread`` reads that) but the references that keep each Loop alive.
_threaded: dict[LoopState, OwnThread] = {}


@atexit.register
def _stop_threads_at_exit() -> None:
    for state in list(_threaded):
        _lib_.cadence_loop_stop_thread(state.handle)


class OwnThread:
    """Running a :class:`~cadence.Loop` on a thread of its own (a base class of it)."""

    _state: LoopState

    def start_thread(self, *, mode: str = "default") -> None:
        """Starts a thread that runs the loop in ``mode`` until :meth:`stop_thread`, so that
        timers fire without the program running the loop (the dispatch-timer use; Swift's
        ``startThread(mode:)``).

        Callbacks then run on that thread, so what they touch must be safe to share; every method
        may be called from any thread. :meth:`run` and :meth:`close` raise
        :class:`~cadence.LoopBusy` until the thread is stopped; leaving the loop's ``with`` block
        stops it. :meth:`threaded` is a context manager for a start/stop pair.

        An exception raised by a callback on the loop's thread cannot be re-raised from a
        :meth:`run` that nobody called: it is passed at once to :func:`threading.excepthook`
        (which prints it, as for an exception in a :class:`threading.Timer`), and the loop goes
        on firing its other timers.

        Args:
            mode: a registered mode other than ``"common"``; default ``"default"``. Keyword-only.

        Raises:
            TypeError: ``mode`` is not a str.
            InvalidArgument: ``mode`` is empty, malformed or ``"common"``.
            UnknownMode: ``mode`` is not registered.
            LoopBusy: the loop is running, or already has a thread.
            OutOfMemory: no thread could be started.
            BadHandle: the loop is closed.
        """
        where = "Loop.start_thread"
        name = _checks.mode(mode, where)
        state = self._state
        with state.starting:  # never held while a thread is waited for (see stop_thread)
            if not state.claim():  # claimed until C has the thread, so that no run starts
                raise LoopBusy(context=where, detail=RUNNING_OR_THREAD)
            state.callbacks_from_thread(True)  # before the thread can call any
            try:
                code = _lib_.cadence_loop_start_thread(state.handle, name)
            finally:
                state.release()
            if code:
                state.callbacks_from_thread(False)
                check(code, where)
            state.starts += 1
            _threaded[state] = self

    def stop_thread(self) -> None:
        """Stops the loop's own thread after its current pass and waits for it to end (a
        callback running on it finishes first). Does nothing if the loop has no thread. Several
        threads may call it at once: each returns once the loop's thread has ended.

        Raises:
            LoopBusy: called from the loop's own thread (a callback), which cannot wait for
                itself; the thread goes on.
            BadHandle: the loop is closed.
        """
        state = self._state
        with state.starting:  # a start_thread under way finishes first
            starts = state.starts
        check(_lib_.cadence_loop_stop_thread(state.handle), "Loop.stop_thread")
        with state.starting:
            if state.starts == starts:  # else a thread started meanwhile, which C may not have seen
                state.callbacks_from_thread(False)
                _threaded.pop(state, None)

    @property
    def has_thread(self) -> bool:
        """Whether a thread started by :meth:`start_thread` runs the loop (until
        :meth:`stop_thread` has waited for it), as C says (``cadence_loop_has_thread``, Swift's
        ``hasThread``); False once the loop is closed."""
        return self._state.thread

    @contextlib.contextmanager
    def threaded(self: _T, *, mode: str = "default") -> Iterator[_T]:
        """A context manager that runs the loop on its own thread for the ``with`` block::

            with cadence.Loop() as loop, loop.threaded():
                loop.schedule(0.1, on_time)
                time.sleep(0.5)  # on_time runs on the loop's thread meanwhile

        It calls :meth:`start_thread` on entry and :meth:`stop_thread` on exit (also when the
        block raises).

        Args:
            mode: as for :meth:`start_thread`. Keyword-only.

        Raises:
            As :meth:`start_thread` on entry and :meth:`stop_thread` on exit.
        """
        self.start_thread(mode=mode)
        try:
            yield self
        finally:
            self.stop_thread()
