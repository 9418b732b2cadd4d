"""A loop on a thread of its own: the methods of :class:`~cadence.Loop` that start and stop it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TypeVar

from . import _args, _lib, _lifecycle, _registry
from .errors import EBUSY, RUNNING_OR_THREAD, BadHandle, LoopBusy, check

__all__ = ["LoopThreadMethods"]

_L = TypeVar("_L", bound="LoopThreadMethods")


class LoopThreadMethods:
    """The part of :class:`~cadence.Loop` about running on a thread of its own."""

    _state: _registry.LoopState

    def _require_open(self, what: str) -> _registry.LoopState:
        if self._state.closed:
            raise BadHandle(context=what, detail="loop must be open, got a closed Loop")
        return self._state

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
        name = _args.mode(mode, "Loop.start_thread")
        state = self._require_open(where)
        with state.lock:  # claimed first, so that no Loop.run starts meanwhile (it checks both)
            busy = state.running or state.thread
            if not busy:
                state.thread = True
        code = EBUSY if busy else int(_lib.lib.cadence_loop_start_thread(state.handle, name))
        if code != 0:
            if not busy:
                with state.lock:
                    state.thread = False
            if code == EBUSY:
                raise LoopBusy(context=where, detail=RUNNING_OR_THREAD)
            check(code, where)
        _lifecycle.track_thread(self, state)

    def stop_thread(self) -> None:
        """Stops the loop's own thread after its current pass and waits for it to end (a
        callback running on it finishes first). Does nothing if the loop has no thread. Several
        threads may call it at once: each returns once the loop's thread has ended.

        Raises:
            LoopBusy: called from the loop's own thread (a callback), which cannot wait for
                itself; the thread goes on.
            BadHandle: the loop is closed.
        """
        self._require_open("Loop.stop_thread")
        code = _lifecycle.stop_thread(self._state)
        if code == EBUSY:
            raise LoopBusy(
                context="Loop.stop_thread",
                detail="the calling thread must not be the loop's own thread (a callback), which "
                "cannot wait for itself to end",
            )
        check(code, "Loop.stop_thread")

    @property
    def has_thread(self) -> bool:
        """Whether a thread started by :meth:`start_thread` runs the loop (until
        :meth:`stop_thread`)."""
        return self._state.thread

    @contextlib.contextmanager
    def threaded(self: _L, *, mode: str = "default") -> Iterator[_L]:
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
