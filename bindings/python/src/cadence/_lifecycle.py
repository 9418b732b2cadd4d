"""The lifetime of C loops: destroying them, stopping their own threads, and both at exit or
when a :class:`~cadence.Loop` is collected."""

from __future__ import annotations

import atexit
import threading

from . import _lib, _registry
from .errors import EBUSY

#: Loops whose own thread is running, to stop before the interpreter exits. Holding the
#: :class:`Loop` keeps it (and its callbacks) alive while its thread may call them.
_threaded: dict[_registry.LoopState, object] = {}
#: Threads stopping the thread of a collected loop (see collect), joined at exit.
_collectors: set[threading.Thread] = set()
_exit_hook_registered = False
_exiting = False


def destroy(state: _registry.LoopState) -> int:
    """Destroys the C loop unless it is running or has a thread; returns the C code."""
    with state.lock:
        if state.closed:
            return 0
        # A run from Python, or an attached loop, is outside C between passes: the binding
        # knows it is running.
        if state.running:
            return EBUSY
        code = int(_lib.lib.cadence_loop_destroy(state.handle))
        if code == 0:
            state.closed = True
    if code == 0:
        _registry.unregister_loop(state)
        _threaded.pop(state, None)
    return code


def stop_thread(state: _registry.LoopState) -> int:
    """Stops the loop's own thread, if any, and waits for it; returns the C code."""
    if state.closed:
        return 0
    code = int(_lib.lib.cadence_loop_stop_thread(state.handle))
    if code == 0:
        with state.lock:
            state.thread = False
        _threaded.pop(state, None)
    return code


def _stop_and_destroy(state: _registry.LoopState) -> None:
    if stop_thread(state) == 0:
        destroy(state)
    _collectors.discard(threading.current_thread())


def collect(state: _registry.LoopState) -> None:
    """The finalizer of a collected :class:`Loop`: stops its thread, if any, then destroys it.

    A loop with a thread is held by :data:`_threaded` until the thread stops, so it has none
    when it is collected; at exit, ``weakref.finalize`` calls this for the loops still alive,
    after :func:`_stop_threads_at_exit`. Should a thread be left, stopping it waits for it,
    and its callbacks may need a lock that the code this collection interrupted is holding (or
    the collection may be running on that very thread), so it is stopped from a short-lived
    helper thread, except at exit.

    A loop still marked running is one attached to an asyncio loop that was closed without a
    detach (a :meth:`Loop.run` holds its loop, so no run is in progress): that ends here.
    """
    state.leave_run()
    if not state.thread or _exiting:
        _stop_and_destroy(state)
        return
    helper = threading.Thread(
        target=_stop_and_destroy, args=(state,), name="cadence loop collector", daemon=True
    )
    _collectors.add(helper)
    try:
        helper.start()
    except RuntimeError:  # no new threads at interpreter shutdown: nothing else runs then
        _collectors.discard(helper)
        _stop_and_destroy(state)


def track_thread(loop: object, state: _registry.LoopState) -> None:
    """Holds a loop whose thread was started, until the thread stops or the interpreter exits."""
    global _exit_hook_registered
    _threaded[state] = loop
    if not _exit_hook_registered:
        atexit.register(_stop_threads_at_exit)
        _exit_hook_registered = True


def _stop_threads_at_exit() -> None:
    """Stops every loop thread still running, while the interpreter can still run callbacks.

    Registered by the first :meth:`Loop.start_thread`, after the first ``weakref.finalize`` of a
    loop, so that it runs before the finalizers that ``weakref`` runs at exit. Errors are
    ignored: nothing can be done about them at exit.
    """
    global _exiting
    _exiting = True
    for helper in list(_collectors):
        helper.join()
    for state in list(_threaded):
        stop_thread(state)
