"""An interrupt (Ctrl-C, or any exception a signal handler raises between two bytecodes) inside
``cadence.asyncio``'s bookkeeping of timers: ``call_at``, the flush of the turn's starts, the
queueing of a pass's fires. Raised here at every bytecode in turn (a tracing function), where
Python 3.9 and 3.10 can run a signal handler (3.11 and later only after calls): no timer may then
fire early or twice, the loop goes on, and ``close()`` works, as on asyncio's loop."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import sys
import threading
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

import pytest

import cadence
import cadence.asyncio as ca
from cadence import _cancels
from cadence._asyncio_armed import Armed
from cadence._asyncio_pending import Pending
from cadence._asyncio_timer import Timer

EVENT = "line" if sys.version_info >= (3, 12) else "opcode"


#: The trace functions of the last :func:`run_at`.
_TRACES: list[Callable[..., Any]] = []


def run_at(code: CodeType, opcode: int, action: Callable[[FrameType], object]) -> list[bool]:
    """Runs ``action(frame)`` before the ``opcode``-th bytecode (from 1) that the first call of
    ``code`` runs (from 3.12, whose tracing gives no bytecode events here, before a line's
    first), as a signal handler or another thread would run there; the list says whether it
    did."""
    done, seen = [False], [0]

    def local(frame: FrameType, event: str, arg: object) -> Any:
        if event == EVENT and not done[0]:
            seen[0] += 1
            if seen[0] == opcode:
                done[0] = True
                sys.settrace(None)
                action(frame)
        return local

    def calls(frame: FrameType, event: str, arg: object) -> Any:
        if frame.f_code is code and not done[0]:
            frame.f_trace_opcodes = True
            return local
        return None

    # Kept: the trace function's only reference is the thread's, which ``sys.settrace(None)``
    # inside ``local`` drops while CPython 3.11 still calls through it (the freed closure was
    # called: a crash, or not, as the allocator reused its memory).
    _TRACES[:] = [calls, local]
    sys.settrace(calls)
    return done


def interrupt(frame: FrameType) -> None:
    """An exception from a signal handler (Ctrl-C)."""
    raise KeyboardInterrupt


def interrupt_at(code: CodeType, opcode: int) -> list[bool]:
    """Raises KeyboardInterrupt before the ``opcode``-th bytecode of ``code`` (see
    :func:`run_at`)."""
    return run_at(code, opcode, interrupt)


def sigint(frame: FrameType) -> None:
    """The SIGINT handler installed now, called with ``frame`` as CPython calls it."""
    handler = signal.getsignal(signal.SIGINT)
    assert callable(handler)
    handler(signal.SIGINT, frame)


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
    """Runs the loop past ``date``, through interrupts; ``name`` must have fired by then. (A run
    that an interrupt ended may leave its stop queued, which ends the next run early: asyncio's
    "Event loop stopped before Future completed", on any asyncio loop.)"""
    for _ in range(5):
        with contextlib.suppress(KeyboardInterrupt, RuntimeError):
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


def drained(loop: ca.EventLoop) -> None:
    """Once the tasks an interrupt left are done (a sleep whose run it ended), the event loop's
    table and C hold no timer (every one fired or was cancelled)."""
    for _ in range(3):  # a stop that an interrupted run left queued ends one run early
        if left := asyncio.all_tasks(loop):
            with contextlib.suppress(RuntimeError):
                loop.run_until_complete(asyncio.gather(*left))
    assert not asyncio.all_tasks(loop)
    assert loop._armed.held() == 0
    assert loop.cadence.armed_timer_count == 0


@pytest.mark.parametrize("starts", [1, 5], ids=["one start", "a batch"])
@pytest.mark.parametrize("virtual", [False, True], ids=["EventLoop", "VirtualEventLoop"])
@pytest.mark.parametrize("where", ["Pending._start", "Armed.hold_all"])
def test_a_flush_of_starts_interrupted_at_any_bytecode_loses_nothing(
    starts: int, virtual: bool, where: str
) -> None:
    """Each timer fires once, in date order, never early; the one cancelled never; the table
    and C hold nothing once all fired; ``close()`` works (it raised OverflowError for a timer
    the flush had taken, and the turn's starts were lost)."""
    code = (Pending._start if where == "Pending._start" else Armed.hold_all).__code__

    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop() if virtual else ca.EventLoop()
        try:
            fires = Fires(loop)
            now = loop.time()
            handles = [fires.at(now + 0.001 * (k + 1), f"t{k}") for k in range(starts)]
            handles.append(fires.at(now + 60, "cancelled"))  # never due before its cancel
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(0))  # its select flushes
            sys.settrace(None)
            handles[-1].cancel()  # never after cancel(), whatever the flush left
            fires.at(now + 0.008, "after")
            until(loop, fires, "after", now + 0.008)
            assert fires.check() == [f"t{k}" for k in range(starts)] + ["after"]
            drained(loop)
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(code, case) > 5


@pytest.mark.parametrize("virtual", [False, True], ids=["EventLoop", "VirtualEventLoop"])
def test_a_lone_start_interrupted_at_any_bytecode_never_takes_the_last_ones_handle(
    virtual: bool,
) -> None:
    """A lone start (the turn's one timer) reuses its event loop's arrays, where C's answer for
    the last lone start stays: an interrupt before the answer was zeroed gave the new timer the
    last one's handle, so that it never fired, its key stayed held, and its cancel stopped the
    last one."""
    code = Pending._start.__code__

    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop() if virtual else ca.EventLoop()
        try:
            fires = Fires(loop)
            now = loop.time()
            fires.at(now + 0.005, "first")
            loop.run_until_complete(asyncio.sleep(0))  # a lone start, in C
            second = fires.at(now + 60, "second")  # far: never due before its cancel
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(0))  # its select flushes it alone
            sys.settrace(None)
            second.cancel()
            fires.at(now + 0.008, "after")
            until(loop, fires, "after", now + 0.008)
            assert fires.check() == ["first", "after"]
            drained(loop)
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(code, case) > 10


@pytest.mark.parametrize("where", ["Pending._cancel", "Armed.drop_all"])
def test_a_flush_of_cancels_interrupted_at_any_bytecode_loses_nothing(where: str) -> None:
    """The cancelled timers never fire (their cancels reach C, at the next flush if not at
    this one), the others do, and their keys all come back (one cut between a slot's emptying
    and its key's freeing stayed held for good)."""
    code = (Pending._cancel if where == "Pending._cancel" else Armed.drop_all).__code__

    def case(n: int) -> bool:
        loop = ca.EventLoop()
        try:
            fires = Fires(loop)
            now = loop.time()
            # The cancelled ones far ahead: no stall of a loaded machine lets them fire first.
            handles = [fires.at(now + (60 if k % 2 == 0 else 0.002), f"t{k}") for k in range(6)]
            loop.run_until_complete(asyncio.sleep(0))  # the starts are in C
            for handle in handles[::2]:
                handle.cancel()
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(0))
            sys.settrace(None)
            fires.at(now + 0.006, "after")
            until(loop, fires, "after", now + 0.006)
            assert fires.check() == ["t1", "t3", "t5", "after"]
            drained(loop)
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(code, case) > 5


def test_recorded_cancels_of_cadences_own_timers_reach_c_through_any_interrupt() -> None:
    """A flush of the cancels recorded for Cadence's own timers (``_cancels``), shared with the
    event loops, interrupted anywhere: they reach C at the next flush."""
    code = _cancels.flush.__code__

    def case(n: int) -> bool:
        loop = cadence.Loop()
        try:
            timers = [loop.schedule(60, lambda tick: None, interval=1.0) for _ in range(4)]
            assert all(timer.cancel() for timer in timers)  # recorded
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                assert loop.armed_timer_count >= 0  # a read flushes first
            sys.settrace(None)
            assert loop.armed_timer_count == 0
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(code, case) > 5


def test_a_flush_that_another_thread_interrupts_at_any_bytecode_loses_no_cancel() -> None:
    """Another thread's flush, and a cancel it records then, in every gap of this thread's flush
    (run in the gap here, as a switch would run it): the copy and the emptying of the records
    were two steps, and the second deleted the record that neither flush had copied (3.9, whose
    threads switch after nearly any bytecode: a few cancels in 40,000 stayed armed in C)."""
    code = _cancels.flush.__code__

    def case(n: int) -> bool:
        # The collector off: a finalizer of earlier tests' garbage (an event loop's close, a timer
        # given up) flushes the records too, which could take this case's before its flush does.
        gc.collect()
        gc.disable()
        loop = cadence.Loop()
        try:
            first, second = (loop.schedule(60, lambda tick: None, interval=1.0) for _ in "ab")
            assert first.cancel()

            def action(frame: FrameType) -> None:
                _cancels.flush()  # the other thread's flush, then its cancel
                assert second.cancel()

            done = run_at(code, n, action)
            try:
                _cancels.flush()
            finally:
                sys.settrace(None)
            if not done[0]:  # past the flush's last bytecode: no gap left
                assert second.cancel()
            _cancels.flush()
            assert loop.armed_timer_count == 0
        finally:
            gc.enable()
            loop.close()
        return done[0]

    assert every_opcode(code, case) > 5


@pytest.mark.parametrize("where", ["Pending._start", "Armed.hold_all"])
def test_a_flush_of_starts_that_another_flush_interrupts_at_any_bytecode_arms_each_once(
    where: str,
) -> None:
    """Another flush, and a start made then, in every gap of this flush (as a signal handler or a
    finalizer that uses the loop would run them, or, before only the event loop's thread
    flushed, another thread). The first read the head of the pending starts and then deleted
    it, two steps: another flush in between raised IndexError, or armed a timer twice; later
    the two shared a key of the table, and one timer fired for the other, early."""
    code = (Pending._start if where == "Pending._start" else Armed.hold_all).__code__

    def case(n: int) -> bool:
        loop = ca.EventLoop()
        try:
            fires = Fires(loop)
            now = loop.time()
            for k in range(3):
                fires.at(now + 0.001 * (k + 1), f"t{k}")

            def action(frame: FrameType) -> None:
                assert loop.cadence.armed_timer_count >= 0  # the other thread's flush
                fires.at(now + 0.004, "t3")

            done = run_at(code, n, action)
            try:
                assert loop.cadence.armed_timer_count >= 0  # this thread's flush
            finally:
                sys.settrace(None)
            if not done[0]:  # past the flush's last bytecode: no gap left
                fires.at(now + 0.004, "t3")
            until(loop, fires, "t3", now + 0.004)
            assert fires.check() == ["t0", "t1", "t2", "t3"]
            drained(loop)
        finally:
            loop.close()
        return done[0]

    assert every_opcode(code, case) > 5


@pytest.mark.parametrize("in_c", [False, True], ids=["pending", "in C"])
def test_a_cancel_interrupted_at_any_bytecode_says_what_the_timer_does(in_c: bool) -> None:
    """``cancelled()`` is True exactly when the timer never fires (it was False for one whose
    one-shot the cancel had already recorded). On the virtual twin, whose clock waits for the
    cancel however long a loaded machine stalls."""
    code = Timer.cancel.__code__

    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop()
        try:
            fires = Fires(loop)
            now = loop.time()
            handle = fires.at(now + 0.002, "cancelled")
            if in_c:
                loop.run_until_complete(asyncio.sleep(0))
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                handle.cancel()
            sys.settrace(None)
            fires.at(now + 0.004, "after")
            until(loop, fires, "after", now + 0.004)
            names = fires.check()
            assert handle.cancelled() == ("cancelled" not in names)
            drained(loop)
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(code, case) > 5


@pytest.mark.parametrize("virtual", [False, True], ids=["EventLoop", "VirtualEventLoop"])
def test_a_ctrl_c_as_a_batch_of_fires_calls_a_timer_loses_none(virtual: bool) -> None:
    """A SIGINT at the first bytecode of a timer's call from C's batch of fires (every fire of
    the virtual twin, and those past the 256 a pass collects on the real loop) is raised after
    the pass, as anywhere in the C callbacks: the timer was lost."""
    loop = ca.VirtualEventLoop() if virtual else ca.EventLoop()
    try:
        fires = Fires(loop)
        date = loop.time() + 0.002
        for k in range(300):
            fires.at(date, f"t{k}")
        done = run_at(Timer.__call__.__code__, 1, sigint)
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(asyncio.sleep(0.004))
        sys.settrace(None)
        fires.at(after := loop.time() + 0.001, "after")
        until(loop, fires, "after", after)
        assert done[0]
        assert fires.check() == [f"t{k}" for k in range(300)] + ["after"]
        drained(loop)
    finally:
        sys.settrace(None)
        loop.close()


def test_a_start_made_inside_a_flush_is_armed_by_that_flush() -> None:
    """A start that a signal handler or a finalizer makes while a flush runs (whose own flush,
    inside it, leaves its records to it) is armed before the loop waits: on the virtual twin it
    fires at its date, not at the next timer's."""
    code = Pending._start.__code__

    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop()
        try:
            fires = Fires(loop)
            fires.at(5.0, "later")

            def action(frame: FrameType) -> None:
                fires.at(0.5, "sooner")
                assert loop.cadence.armed_timer_count >= 0  # its flush, inside this one

            done = run_at(code, n, action)
            try:
                loop.run_until_complete(asyncio.sleep(6))
            finally:
                sys.settrace(None)
            if done[0]:
                assert [(name, at) for name, _, at in fires.fired] == [
                    ("sooner", 0.5),
                    ("later", 5.0),
                ]
            drained(loop)
        finally:
            loop.close()
        return done[0]

    assert every_opcode(code, case) > 5


def test_a_cancel_made_inside_a_flush_of_starts_reaches_c() -> None:
    """A signal handler or a finalizer that cancels a timer whose start a flush has taken (in
    any gap of that flush): the timer never runs and its one-shot is cancelled in C, where the
    flush's answer overwrote the cancel's mark and the one-shot stayed armed until its date."""
    code = Pending._start.__code__

    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop()
        try:
            fires = Fires(loop)
            handles = [fires.at(3600.0, f"t{k}") for k in range(3)]

            def action(frame: FrameType) -> None:
                handles[1].cancel()

            done = run_at(code, n, action)
            try:
                loop.run_until_complete(asyncio.sleep(0))  # its select flushes
            finally:
                sys.settrace(None)
            if not done[0]:
                handles[1].cancel()
            loop.run_until_complete(asyncio.sleep(0))  # the next flush
            assert loop.cadence.armed_timer_count == 2
            loop.run_until_complete(asyncio.sleep(3601))
            assert fires.check() == ["t0", "t2"]
            assert handles[1].cancelled()
            drained(loop)
        finally:
            loop.close()
        return done[0]

    assert every_opcode(code, case) > 5


def test_only_the_event_loops_thread_flushes() -> None:
    """Another thread's use of the Cadence loop hands over nothing, also while the event loop
    does not run (two threads' flushes shared the table's keys); close() from another thread
    takes the flushes over and cancels every timer it armed."""
    loop = ca.EventLoop()
    try:
        loop.call_later(3600, print)
        counts: list[int] = []
        other = threading.Thread(target=lambda: counts.append(loop.cadence.armed_timer_count))
        other.start()
        other.join()
        assert counts == [0]
        assert loop.cadence.armed_timer_count == 1  # this thread's read flushes
        loop.call_later(3600, print)
        closing = threading.Thread(target=loop.close)
        closing.start()
        closing.join()
        assert loop.is_closed()
    finally:
        loop.close()


def test_a_shrink_of_the_table_interrupted_at_any_bytecode_keeps_the_loop_working() -> None:
    """The table gives its keys up after a burst: an interrupt between emptying its slots and
    its free keys left free keys beyond an empty table, and every later start failed."""
    code = Armed.shrink.__code__

    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop()
        try:
            fires = Fires(loop)
            for _ in range(Armed.KEEP + 10):
                loop.call_at(1.0, lambda: None)
            # Armed by a callback: the flush that finds every key free (the first once the sleep
            # has fired too) is in this run, which its shrink would otherwise end before.
            interrupted: list[list[bool]] = []
            loop.call_at(1.5, lambda: interrupted.append(interrupt_at(code, n)))
            with contextlib.suppress(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(2))
            sys.settrace(None)
            fires.at(3.0, "after")
            until(loop, fires, "after", 3.0)
            assert fires.check() == ["after"]
            drained(loop)
        finally:
            loop.close()
        return interrupted[0][0]

    assert every_opcode(code, case) >= 3


@pytest.mark.parametrize("virtual", [False, True], ids=["EventLoop", "VirtualEventLoop"])
def test_a_run_interrupted_at_any_bytecode_of_its_start_or_end_leaves_the_loop_free(
    virtual: bool,
) -> None:
    """An interrupt as the run claimed the Cadence loop (before the ``try`` that gives it back)
    left it claimed for good: every later run and ``close()`` raised LoopBusy."""
    code = ca.EventLoop.run_forever.__code__

    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop() if virtual else ca.EventLoop()
        try:
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(0))
            sys.settrace(None)
            fires = Fires(loop)
            fires.at(date := loop.time() + 0.001, "again")
            until(loop, fires, "again", date)
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(code, case) > 5


def test_queueing_a_pass_interrupted_at_any_bytecode_loses_nothing() -> None:
    """Also for timers that asyncio's handles call equal (the same date, callback and
    arguments): the record an interrupt cut is looked for in the ready queue by identity."""
    code = ca.EventLoop._enqueue.__code__

    def case(n: int) -> bool:
        loop = ca.EventLoop()
        try:
            fires = Fires(loop)
            now = loop.time()
            calls: list[int] = []
            for _ in range(10):
                loop.call_at(now + 0.002, calls.append, 1)  # equal handles, one pass
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(0.004))
            sys.settrace(None)
            fires.at(date := loop.time() + 0.001, "after")
            until(loop, fires, "after", date)
            assert calls == [1] * 10
            drained(loop)
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(code, case) > 10


@pytest.mark.parametrize("where", ["Pending._start", "Pending._cancel", "EventLoop._enqueue"])
def test_a_sigint_in_the_bookkeeping_while_the_loop_runs_is_raised_once_it_is_done(
    where: str,
) -> None:
    """Cadence's SIGINT handler, installed while the main thread runs the event loop, records a
    Ctrl-C that lands in a flush or in the queueing of a pass (``_state.GLUE``), and the loop
    raises it once that is done: nothing to give back, and every timer fires."""
    owner, name = where.split(".")
    code = getattr(Pending if owner == "Pending" else ca.EventLoop, name).__code__

    def case(n: int) -> bool:
        loop = ca.EventLoop()
        try:
            fires = Fires(loop)
            now = loop.time()
            for k in range(5):
                fires.at(now + 0.002, f"t{k}")
            cancelled = fires.at(now + 60, "cancelled")  # never due before its cancel
            loop.run_until_complete(asyncio.sleep(0))  # the starts go to C
            cancelled.cancel()  # its cancel, at the next flush
            done = run_at(code, n, sigint)
            try:
                loop.run_until_complete(asyncio.sleep(0.004))
                assert not done[0]  # only when no bytecode was left to interrupt
            except KeyboardInterrupt:
                assert done[0]
            finally:
                sys.settrace(None)
            fires.at(after := max(now + 0.004, loop.time() + 0.001), "after")
            until(loop, fires, "after", after)
            assert fires.check() == [f"t{k}" for k in range(5)] + ["after"]
            drained(loop)
        finally:
            loop.close()
        return done[0]

    assert every_opcode(code, case) > 5


@pytest.mark.parametrize("where", ["_pass", "_reach"])
def test_a_virtual_pass_interrupted_at_any_bytecode_keeps_the_clock_at_the_timers_dates(
    where: str,
) -> None:
    """As below, with the interrupt at every bytecode of the pass (where 3.9 and 3.10 could land
    one at the first bytecode of the ``finally`` that raises the floor) and of the floor's
    move: the next select catches the floor up before anything runs."""
    code = getattr(ca.VirtualEventLoop, where).__code__

    def case(n: int) -> bool:
        loop = ca.VirtualEventLoop()
        try:
            seen: list[float] = []
            when = 0.1 + 0.2
            loop.call_at(when, lambda: seen.append(loop.time()))
            interrupted = interrupt_at(code, n)
            with contextlib.suppress(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(1))
            sys.settrace(None)
            loop.run_until_complete(asyncio.sleep(1))
            assert seen == [when]
        finally:
            loop.close()
        return interrupted[0]

    assert every_opcode(code, case) > 3


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


@pytest.mark.parametrize("virtual", [False, True], ids=["EventLoop", "VirtualEventLoop"])
def test_a_ctrl_c_recorded_in_the_flush_before_a_wait_is_raised_before_the_wait(
    virtual: bool,
) -> None:
    """A SIGINT in the flush that comes before a select (glue, where Cadence's handler records
    it) is raised there, not after whatever the loop then waits for: the virtual twin waited for
    an executor job first."""
    loop = ca.VirtualEventLoop() if virtual else ca.EventLoop()
    release, done = threading.Event(), list[list[bool]]()

    def job() -> None:
        release.wait(10)

    async def main() -> None:
        waiting = loop.run_in_executor(None, job)
        await asyncio.sleep(0)  # the job is under way
        loop.call_later(60.0, lambda: None)  # a start, which the flush before the select makes
        done.append(run_at(Pending.flush.__code__, 1, sigint))
        await waiting

    try:
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(main())
        assert done == [[True]]
        assert not release.is_set()  # raised while the job still ran
    finally:
        sys.settrace(None)
        release.set()
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
