"""A pytest plugin that runs a third-party test suite, unchanged, on the event loop named by the
environment variable ``CADENCE_THIRDPARTY_LOOP``: ``default`` (asyncio's own), ``cadence``
(:class:`cadence.asyncio.EventLoop`) or ``virtual`` (:class:`cadence.asyncio.VirtualEventLoop`).

Loaded with ``-p thirdparty_loop`` by ``scripts/thirdparty.py``. It sets asyncio's event loop
policy before any test runs, which every suite there makes its loops through: pytest-asyncio
0.24's ``event_loop_policy`` fixture returns the policy in force, and ``get_event_loop()`` or
``new_event_loop()`` in a suite's own helpers ask it too. At the end it writes, to the file named
by ``CADENCE_THIRDPARTY_REPORT``, the class of each loop the policy made and how many timers
(``call_at`` and ``call_later``, which sleeps and timeouts go through) the suite armed on them, so
that the runner can tell a suite that ran on Cadence's loop from one that bypassed it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
from typing import Any

import pytest

import cadence.asyncio

LOOPS = ("default", "cadence", "virtual")
_made: list[str] = []
_timers = [0]


class _Counting:
    """Counts the loops its policy makes (a mixin for asyncio's and Cadence's policies)."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        """The policy's new loop, counted by its class, its ``call_at`` and ``call_later``
        counting timers (once each: asyncio's ``call_later`` calls ``call_at``, Cadence's not)."""
        loop: asyncio.AbstractEventLoop = super().new_event_loop()  # type: ignore[misc]
        _made.append(type(loop).__name__)
        call_at, call_later, inside = loop.call_at, loop.call_later, [False]

        @functools.wraps(call_at)
        def counting_at(*args: Any, **kwargs: Any) -> asyncio.TimerHandle:
            _timers[0] += not inside[0]
            return call_at(*args, **kwargs)

        @functools.wraps(call_later)
        def counting_later(*args: Any, **kwargs: Any) -> asyncio.TimerHandle:
            _timers[0] += 1
            inside[0] = True  # the loop's thread only, as asyncio requires
            try:
                return call_later(*args, **kwargs)
            finally:
                inside[0] = False

        setattr(loop, "call_at", counting_at)  # noqa: B010
        setattr(loop, "call_later", counting_later)  # noqa: B010
        return loop


class _DefaultPolicy(_Counting, asyncio.DefaultEventLoopPolicy):
    pass


class _CadencePolicy(_Counting, cadence.asyncio.EventLoopPolicy):
    pass


def pytest_configure(config: pytest.Config) -> None:
    """Installs the policy of the loop named by ``CADENCE_THIRDPARTY_LOOP``.

    Raises:
        pytest.UsageError: the name is not one of ``default``, ``cadence``, ``virtual``.
    """
    name = os.environ.get("CADENCE_THIRDPARTY_LOOP", "default")
    if name not in LOOPS:
        raise pytest.UsageError(f"CADENCE_THIRDPARTY_LOOP: {name!r} is not one of {LOOPS}")
    policy: asyncio.AbstractEventLoopPolicy = (
        _DefaultPolicy() if name == "default" else _CadencePolicy(virtual=name == "virtual")
    )
    asyncio.set_event_loop_policy(policy)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Puts asyncio's default policy back, and writes the loops made to
    ``CADENCE_THIRDPARTY_REPORT`` (when it is set)."""
    asyncio.set_event_loop_policy(None)
    path = os.environ.get("CADENCE_THIRDPARTY_REPORT")
    if path:
        with open(path, "w") as report:
            json.dump({"loops": _made, "timers": _timers[0]}, report)
