"""cadence.asyncio.run: asyncio.run's steps on a Cadence event loop, on every Python this package
supports (asyncio's Runner from 3.11, its own steps before), changing nothing process-wide."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
from typing import Any

import pytest

import cadence.asyncio as ca


async def loop_kind() -> str:
    await asyncio.sleep(0.001)
    return type(asyncio.get_running_loop()).__name__


def test_runs_on_many_threads_at_once_leave_other_threads_and_the_policy_alone() -> None:
    policy = asyncio.get_event_loop_policy()
    plain = asyncio.new_event_loop()
    plain_kind = type(plain).__name__
    plain.close()

    def run(index: int) -> str:
        if index % 2:
            return ca.run(loop_kind(), virtual=index % 4 == 1)
        return asyncio.run(loop_kind())

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        kinds = list(pool.map(run, range(400)))
    expected = [
        ("VirtualEventLoop" if index % 4 == 1 else "EventLoop") if index % 2 else plain_kind
        for index in range(400)
    ]
    assert kinds == expected
    assert asyncio.get_event_loop_policy() is policy


def test_the_tasks_left_are_cancelled_and_their_errors_reported() -> None:
    reported: list[dict[str, Any]] = []
    cancelled: list[str] = []

    async def stubborn() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append("stubborn")
            raise ValueError("on its way out") from None

    async def main() -> str:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _, context: reported.append(context))
        left.append(asyncio.create_task(stubborn()))
        await asyncio.sleep(1)
        return "done"

    left: list[asyncio.Task[None]] = []
    assert ca.run(main(), virtual=True) == "done"
    assert left[0].done()
    assert cancelled == ["stubborn"]
    assert [type(context["exception"]) for context in reported] == [ValueError]


def test_inside_a_running_loop_it_refuses_and_leaves_nothing_behind() -> None:
    async def main() -> None:
        inner = loop_kind()
        with pytest.raises(RuntimeError, match="running"):
            ca.run(inner)
        assert inspect.getcoroutinestate(inner) == inspect.CORO_CLOSED  # no "never awaited"

    ca.run(main())


def test_something_other_than_a_coroutine_is_refused() -> None:
    with pytest.raises(ValueError, match="coroutine"):
        ca.run(loop_kind)  # type: ignore[arg-type]  # the function, not its coroutine
