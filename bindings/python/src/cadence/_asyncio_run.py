"""What ``cadence.asyncio.run`` adds to asyncio's ``Runner``: the checks ``asyncio.run`` makes
before it makes a loop (a Runner entered where a loop runs fails only as it closes, with another
error), and, before Python 3.11, which has no Runner, asyncio.run's steps on a loop made by the
caller. Nothing process-wide changes: other threads' ``asyncio.run`` and ``cadence.asyncio.run``
calls, meanwhile or after, keep their own loops (an event loop policy set for the call would
reach them). Before 3.11 the loop is the calling thread's current one during the run, as
``asyncio.run`` makes it there; from 3.11 it is not, as with ``asyncio.run(main,
loop_factory=...)`` (code inside reaches it through ``asyncio.get_running_loop()``). Not the
backport of Runner that pytest-asyncio uses (backports.asyncio.runner): it replaces
``asyncio.tasks.Task`` and a function of ``signal`` for the length of a run, for every thread of
the process.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_made(
    main: Coroutine[Any, Any, T],
    new_loop: Callable[[], asyncio.AbstractEventLoop],
    debug: bool | None = None,
) -> T:
    """Runs ``main`` on the loop that ``new_loop`` makes, closed at the end: asyncio's
    ``Runner`` with that loop factory on 3.11+, :func:`run_on` before. The caller has checked
    ``main`` (:func:`check`)."""
    if sys.version_info >= (3, 11):
        with asyncio.Runner(debug=debug, loop_factory=new_loop) as runner:
            result: T = runner.run(main)
            return result
    return run_on(new_loop(), main, debug)


def run_on(loop: asyncio.AbstractEventLoop, main: Coroutine[Any, Any, T], debug: bool | None) -> T:
    """Runs ``main`` on ``loop`` as ``asyncio.run`` does, then cancels the tasks left, finishes
    the async generators and the default executor, and closes ``loop``. The caller has checked
    that no loop runs on this thread and that ``main`` is a coroutine (:func:`check`)."""
    try:
        asyncio.set_event_loop(loop)
        if debug is not None:
            loop.set_debug(debug)
        return loop.run_until_complete(main)
    finally:
        try:
            _cancel_tasks(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def check(main: object) -> None:
    """Refuses what ``asyncio.run`` refuses, before any loop is made.

    Raises:
        RuntimeError: an event loop runs on this thread.
        ValueError: ``main`` is not a coroutine.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("cadence.asyncio.run() cannot be called from a running event loop")
    if not asyncio.iscoroutine(main):
        raise ValueError(f"cadence.asyncio.run: a coroutine was expected, got {main!r}")


def _cancel_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Cancels the tasks ``main`` left and waits for them; an error one of them ends with goes to
    the loop's exception handler, as asyncio.run reports it."""
    tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
    if not tasks:
        return
    for task in tasks:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    for task in tasks:
        if not task.cancelled() and (error := task.exception()) is not None:
            loop.call_exception_handler(
                {
                    "message": "unhandled exception during cadence.asyncio.run() shutdown",
                    "exception": error,
                    "task": task,
                }
            )
