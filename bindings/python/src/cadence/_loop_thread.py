"""A loop run by something else than :meth:`Loop.run`: the methods of :class:`~cadence.Loop`
for a thread of its own, an asyncio loop, and a host loop of the program's (descriptor, pass)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TypeVar

from . import _args, _async, _lib, _lifecycle, _registry
from .errors import EBUSY, RUNNING_OR_THREAD, BadHandle, LoopBusy, check

__all__ = ["LoopThreadMethods"]

_L = TypeVar("_L", bound="LoopThreadMethods")


class LoopThreadMethods:
    """The part of :class:`~cadence.Loop` about running on a thread of its own."""

    _state: _registry.LoopState
    _attachment: _async.Attachment | None = None

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

    # ---- Inside another loop ----

    def attach_asyncio(self, *, mode: str = "default") -> _async.Attachment:
        """Attaches the loop to the running asyncio loop, which runs it from then on: its
        descriptor is watched with ``add_reader`` (as pyzmq does) and each time it is readable one
        pass (:meth:`run_pass`) fires what is due, on the asyncio thread, with no other thread
        (uvloop works too). Plain callbacks, ``async for`` over publishers and countdowns,
        awaited countdowns and pollers all run there, every timing rule kept::

            async def main():
                with cadence.Loop() as loop, loop.attach_asyncio():
                    async for fire_date in loop.publish(0.1).autoconnect():
                        ...

        Exceptions: one raised by a callback during a pass goes to the asyncio loop's exception
        handler (``loop.call_exception_handler``, which logs it by default), as for a callback of
        ``call_soon``, and the loop goes on; KeyboardInterrupt and SystemExit are raised, and end
        the asyncio loop. Errors of a coroutine go to the task that awaits it, as usual.

        The first pass is made before this returns (callbacks already due run in it). While
        attached the loop counts as running: :meth:`run`, :meth:`run_pass` and
        :meth:`start_thread` raise :class:`~cadence.LoopBusy`, and :meth:`stop` does nothing.
        :meth:`close` (or leaving the loop's ``with`` block) detaches it first.

        Args:
            mode: the mode to run in, as for :meth:`run`. Keyword-only.

        Returns:
            An :class:`~cadence.Attachment`: :meth:`~cadence.Attachment.detach` it (on the asyncio
            thread), or use it as a context manager.

        Raises:
            RuntimeError: no asyncio loop is running in this thread.
            NotSupported: a virtual loop, which has no descriptor.
            LoopBusy: the loop is running, attached already, or has a thread of its own.
            TypeError, InvalidArgument, UnknownMode: a bad ``mode``, as for :meth:`run`; the loop
                is left detached.
            BadHandle: the loop is closed.
        """
        name = _args.mode(mode, "Loop.attach_asyncio")
        state = self._require_open("Loop.attach_asyncio")
        self._attachment = _async.Attachment(self, state, name)
        return self._attachment

    def fileno(self) -> int:
        """The loop's descriptor, readable exactly when the loop has work to do now (a due
        wake-up in the mode of the latest :meth:`run_pass`, ``"default"`` until the first): watch
        it for reading in a ``select``, ``poll``, ``selectors`` or GLib loop of the program's and
        call :meth:`run_pass` when it is readable (``cadence_loop_fd``, libuv's
        ``uv_backend_fd``). Arming or cancelling a timer from any thread re-arms it at once.
        Do not read or close it; :meth:`close` closes it, so stop watching it first.

        Raises:
            NotSupported: a virtual loop, whose clock moves only when told.
            BadHandle: the loop is closed.
        """
        return _async.descriptor(self._require_open("Loop.fileno"), "Loop.fileno")

    def run_pass(self, *, mode: str = "default") -> None:
        """One pass on this thread without waiting (libuv's ``UV_RUN_NOWAIT``): fires what is due
        in ``mode`` now, with every rule of :meth:`run` (fire-date order, never early, a timer
        armed during the pass waits for the next one), then arms :meth:`fileno` for the next
        wake-up in ``mode``. On a virtual loop it fires what is due at its clock, which it does
        not move.

        Raises:
            Exception: what a callback raised during the pass (of several, as for :meth:`run`).
            TypeError, InvalidArgument, UnknownMode: a bad ``mode``, as for :meth:`run`.
            LoopBusy: the loop is running (a pass from one of its callbacks, a run, a thread of
                its own, or attached to asyncio).
            BadHandle: the loop is closed.
        """
        where = "Loop.run_pass"
        name = _args.mode(mode, where)
        state = self._require_open(where)
        if state.running or state.thread:
            raise LoopBusy(context=where, detail=RUNNING_OR_THREAD)
        with _registry.capturing() as errors:
            code = int(_lib.lib.cadence_loop_run_pass(state.handle, name))
        _registry.raise_kept(errors)
        check(code, where)
