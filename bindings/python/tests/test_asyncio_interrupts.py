"""An interrupt (Ctrl-C, or any exception a signal handler raises between two bytecodes) inside
``cadence.asyncio``'s bookkeeping of timers: ``call_at``, the flush of the turn's starts, the
queueing of a pass's fires. Raised here at every bytecode in turn (a tracing function), where
Python 3.9 and 3.10 can run a signal handler (3.11 and later only after calls): no timer may then
fire early or twice, the loop goes on, and ``close()`` works, as on asyncio's loop."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

import pytest

import cadence
import cadence.asyncio as ca
from cadence._asyncio_pending import Pending

EVENT = "line" if sys.version_info >= (3, 12) else "opcode"


def interrupt_at(code: CodeType, opcode: int) -> list[bool]:
    """Raises KeyboardInterrupt before the ``opcode``-th bytecode (from 1) that the first call of
    ``code`` runs (from 3.12, whose tracing gives no bytecode events here, before a line's
    first); the list says whether it did."""
    done, seen = [False], [0]

    def local(frame: FrameType, event: str, arg: object) -> Any:
        if event == EVENT and not done[0]:
            seen[0] += 1
            if seen[0] == opcode:
                done[0] = True
                sys.settrace(None)
                raise KeyboardInterrupt
        return local

    def calls(frame: FrameType, event: str, arg: object) -> Any:
        if frame.f_code is code and not done[0]:
            frame.f_trace_opcodes = True
            return local
        return None

    sys.settrace(calls)
    return done


def every_opcode(code: CodeType, case: Callable[[int], bool]) -> int:
    """Runs ``case(n)`` for n = 1, 2, ... until a run is not interrupted (``code`` has fewer
    bytecodes on its path); returns how many were."""
    n = 1
    try:
        while case(n):
            n += 1
    finally:
        sys.settrace(None)
    return n - 1


class Fires:
    """Callbacks that record the clock when they run, against the date they were due."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.fired: list[tuple[str, float, float]] = []

    def at(self, date: float, name: str) -> asyncio.TimerHandle:
        return self.loop.call_at(date, lambda: self.fired.append((name, date, self.loop.time())))

    def check(self) -> list[str]:
        """The names fired, each once and never before its date."""
        early = [(name, date, at) for name, date, at in self.fired if at < date]
        assert early == []
        names = [name for name, _, _ in self.fired]
        assert len(names) == len(set(names))
        return names


def until(loop: asyncio.AbstractEventLoop, fires: Fires, name: str, date: float) -> None:
    """Runs the loop past ``date``, through interrupts; ``name`` must have fired by then."""
    for _ in range(5):
        with contextlib.suppress(KeyboardInterrupt):
            loop.run_until_complete(asyncio.sleep(max(0.0, date - loop.time()) + 0.002))
            break
    assert name in [fired[0] for fired in fires.fired]


def test_call_at_interrupted_at_any_bytecode_leaves_no_date_on_another_timer() -> None:
    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop()
        try:
            fires = Fires(loop)
            interrupted = interrupt_at(ca.EventLoop._arm.__code__, n)
            with contextlib.suppress(KeyboardInterrupt):
                fires.at(0.5, "interrupted")
            sys.settrace(None)
            fires.at(5.0, "later")
            fires.at(1.0, "sooner")
            until(loop, fires, "later", 5.0)
            names = fires.check()
            assert names[-2:] == ["sooner", "later"]
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(ca.EventLoop._arm.__code__, case) > 10


@pytest.mark.parametrize("starts", [1, 5], ids=["one start", "a batch"])
@pytest.mark.parametrize("virtual", [False, True], ids=["EventLoop", "VirtualEventLoop"])
def test_a_flush_interrupted_at_any_bytecode_fires_nothing_early_or_twice(
    starts: int, virtual: bool
) -> None:
    code = (Pending._start_one if starts == 1 else Pending._start).__code__

    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop() if virtual else ca.EventLoop()
        try:
            fires = Fires(loop)
            now = loop.time()
            handles = [fires.at(now + 0.001 * (k + 1), f"t{k}") for k in range(starts)]
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(0))  # its select flushes
            sys.settrace(None)
            handles[-1].cancel()  # never after cancel(), whatever the flush left
            fires.at(now + 0.008, "after")
            until(loop, fires, "after", now + 0.008)
            names = fires.check()
            assert f"t{starts - 1}" not in names
            assert names[-1] == "after"
        finally:
            loop.close()  # raised OverflowError for a timer the flush had taken (handle -1)
        return interrupted[0]

    assert every_opcode(code, case) > 5


def test_queueing_a_pass_interrupted_at_any_bytecode_fires_each_at_most_once() -> None:
    code = ca.EventLoop._enqueue.__code__

    def case(n: int) -> bool:
        loop = ca.EventLoop()
        try:
            fires = Fires(loop)
            now = loop.time()
            for k in range(10):
                fires.at(now + 0.002, f"t{k}")  # collected in one pass
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(0.004))
            sys.settrace(None)
            fires.at(date := loop.time() + 0.001, "after")
            until(loop, fires, "after", date)
            # At most the one being queued is lost, where 3.9 and 3.10 can interrupt.
            assert len(fires.check()) >= 10
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(code, case) > 10


def test_a_virtual_run_interrupted_as_it_returns_keeps_the_clock_at_the_timers_dates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The virtual twin's time() never reads less than a fired timer's date (0.1 + 0.2 fires at
    the nanosecond 0.3, below it by a double's rounding): also when an interrupt comes as the run
    that fired it returns (where 3.11 and later check for signals)."""
    run = cadence._lib.lib.cadence_loop_run
    interrupted: list[bool] = []

    def interrupting(*args: Any) -> int:
        code: int = run(*args)
        if not interrupted:
            interrupted.append(True)
            raise KeyboardInterrupt
        return code

    loop = ca.VirtualEventLoop()
    try:
        seen: list[float] = []
        when = 0.1 + 0.2
        loop.call_at(when, lambda: seen.append(loop.time()))
        monkeypatch.setattr(cadence._lib.lib, "cadence_loop_run", interrupting)
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(asyncio.sleep(1))
        loop.run_until_complete(asyncio.sleep(1))
        assert interrupted
        assert seen == [when]
    finally:
        loop.close()
