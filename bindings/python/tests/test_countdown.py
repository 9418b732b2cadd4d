"""Countdowns as Python sees them: their state (remaining, finished, cancelled, repr), cancel,
``with`` blocks, dropped and detached handles, exceptions from callbacks, bad input. Their
timelines (values and dates, clock jumps, past deadlines, modes) are the scenarios of
Tests/Scenarios/countdown.jsonl, run by test_scenarios.py."""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Iterator

import pytest

import cadence
from cadence import _lib, errors


def ms(seconds: float) -> int:
    return round(seconds * 1000)


class Recorder:
    """Turns a countdown into events like ``"3@0"`` (value at virtual milliseconds) and
    ``"|@3000"`` (finished at 3000), as the seed article's TimelineRecorder."""

    def __init__(self, loop: cadence.Loop) -> None:
        self.loop = loop
        self.events: list[str] = []

    def value(self, remaining: int) -> None:
        self.events.append(f"{remaining}@{ms(self.loop.now())}")

    def finish(self) -> None:
        self.events.append(f"|@{ms(self.loop.now())}")

    def start(self, deadline: float, tick: float) -> cadence.Countdown:
        return self.loop.countdown(deadline, tick, self.value, on_finish=self.finish)


@pytest.fixture
def virtual() -> Iterator[cadence.Loop]:
    with cadence.Loop.virtual() as fresh:
        yield fresh


def is_cancelled_code(handle: int) -> int:
    return int(_lib.lib.cadence_is_cancelled(handle, ctypes.byref(ctypes.c_int())))


def test_a_countdown_reads_its_state_until_it_is_done(virtual: cadence.Loop) -> None:
    recorder = Recorder(virtual)
    countdown = recorder.start(virtual.now() + 3.0, 0.25)
    assert virtual.armed_timer_count == 3  # the first value's one-shot, the tick, the deadline
    assert (countdown.remaining, countdown.finished) == (0, False)  # 0 before the first value
    virtual.run(0.0)
    assert (countdown.remaining, countdown.finished) == (3, False)
    assert virtual.armed_timer_count == 2
    assert repr(countdown) == "<cadence.Countdown 3 s left to 3.0 every 0.25 s>"
    virtual.run(5.0)
    assert recorder.events[-1] == "|@3000"
    assert (countdown.remaining, countdown.finished) == (0, True)
    assert countdown.cancelled  # a finished countdown is done, as a fired one-shot timer
    assert countdown.cancel() is False
    assert virtual.armed_timer_count == 0
    assert repr(countdown) == "<cadence.Countdown finished to 3.0 every 0.25 s>"


def test_a_past_deadline_finishes_on_the_next_pass(virtual: cadence.Loop) -> None:
    virtual.run(5.0)
    recorder = Recorder(virtual)
    countdown = recorder.start(1.0, 0.25)
    virtual.run(0.0)
    assert countdown.finished
    assert countdown.cancelled
    assert virtual.armed_timer_count == 0
    values: list[int] = []
    countdown = virtual.countdown(-1e300, 1.0, values.append)  # on_finish is optional
    assert values == []
    virtual.run(0.0)
    assert values == [0]


def test_cancel_stops_it_and_close_cancels(virtual: cadence.Loop) -> None:
    recorder = Recorder(virtual)
    countdown = recorder.start(5.0, 0.5)
    virtual.run(1.0)
    assert countdown.cancel() is True
    assert countdown.cancel() is False
    assert countdown.cancelled
    assert not countdown.finished
    assert virtual.armed_timer_count == 0
    heard = list(recorder.events)
    virtual.run(10.0)
    assert recorder.events == heard  # no more values, and no finish
    assert repr(countdown) == "<cadence.Countdown cancelled to 5.0 every 0.5 s>"

    closed = Recorder(virtual)
    with closed.start(virtual.now() + 5, 0.5) as countdown:
        virtual.run(1.0)
    assert countdown.closed
    assert countdown.remaining == 4  # still readable
    heard = list(closed.events)
    virtual.run(10.0)
    assert closed.events == heard  # leaving the block cancelled it
    assert virtual.armed_timer_count == 0


def test_dropping_a_countdown_cancels_it_unless_detached(virtual: cadence.Loop) -> None:
    recorder = Recorder(virtual)
    countdown = recorder.start(3.0, 1.0)
    handle = countdown._handle
    with pytest.warns(ResourceWarning, match="still active"):
        del countdown
    gc.collect()
    assert is_cancelled_code(handle) == errors.EBADF  # given up: released, so cancelled
    virtual.run(1.0)
    assert recorder.events == []
    detached = Recorder(virtual)
    countdown = detached.start(virtual.now() + 2.0, 1.0)
    countdown.detach()
    del countdown
    gc.collect()
    virtual.run(5.0)
    assert detached.events[-1] == "|@3000"  # it ran to its finish without its handle
    assert virtual.armed_timer_count == 0


def test_an_exception_in_a_value_callback_comes_out_of_run(virtual: cadence.Loop) -> None:
    seen: list[int] = []

    def fail_at_one(remaining: int) -> None:
        seen.append(remaining)
        if remaining == 1:
            raise ArithmeticError("one")

    _countdown = virtual.countdown(3.0, 1.0, fail_at_one)
    with pytest.raises(ArithmeticError, match="one"):
        virtual.run(10.0)
    assert ms(virtual.now()) == 2000  # stopped after the pass that raised
    virtual.run(10.0)
    assert seen == [3, 2, 1, 0]


def test_an_exception_on_the_first_pass_comes_out_of_run(virtual: cadence.Loop) -> None:

    def refuse(remaining: int) -> None:
        raise LookupError(f"no label for {remaining}")

    countdown = virtual.countdown(3.0, 1.0, refuse)  # calls nothing before it returns
    with pytest.raises(LookupError, match="no label for 3"):
        virtual.run(0.0)
    assert countdown.cancel() is True
    assert virtual.armed_timer_count == 0

    def fail_finish() -> None:
        raise RuntimeError("finish")

    countdown = virtual.countdown(0.0, 1.0, lambda remaining: None, on_finish=fail_finish)
    with pytest.raises(RuntimeError, match="finish"):
        virtual.run(0.0)
    virtual.run(5.0)  # nothing stored for a later run


def test_a_countdown_on_a_real_loop_is_never_early(loop: cadence.Loop) -> None:
    values: list[tuple[int, float]] = []
    finished: list[float] = []

    def finish() -> None:
        finished.append(loop.now())
        loop.stop()

    deadline = loop.now() + 0.3
    countdown = loop.countdown(
        deadline, 0.05, lambda remaining: values.append((remaining, loop.now())), on_finish=finish
    )
    loop.run(5.0)  # stopped by the finish
    assert [value for value, _ in values] == [1, 0]
    assert values[-1][1] >= deadline  # 0 never before the deadline
    assert len(finished) == 1
    assert finished[0] >= deadline
    assert countdown.finished
    assert (countdown.deadline, countdown.tick) == (deadline, 0.05)
