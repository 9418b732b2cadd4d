"""Ctrl-C: ``Loop.run`` on the main thread waits in ``poll`` on the loop's descriptor, which a
signal interrupts, and turns SIGINT into KeyboardInterrupt, with no helper thread and without
changing the loop's semantics."""

from __future__ import annotations

import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Callable

import pytest

import cadence
from cadence import Tick, _run

# What the child runs before `loop.run(1e9)` on `loop`, by case.
SETUPS = {
    "idle": "",
    "timer": """
publisher = loop.publish(0.001)
subscription = publisher.subscribe(lambda tick: None)
connection = publisher.connect()
""",
    "busy callback": """
publisher = loop.publish(0.01)
subscription = publisher.subscribe(lambda tick: time.sleep(5))
connection = publisher.connect()
""",
    "nested run": """
inner = cadence.Loop()
loop.schedule(0.01, lambda tick: inner.run(1e9))
""",
    "virtual": """
loop = cadence.Loop.virtual()
publisher = loop.publish(0.001)
subscription = publisher.subscribe(lambda tick: None)
connection = publisher.connect()
""",
    # A referenced repeating timer keeps a run until idle going for ever, virtual or not; the
    # engine's idle check is inside one C call, where the signal is seen at the next callback.
    "until idle": """
timer = loop.schedule(0.001, lambda tick: None, interval=0.001)
""",
    "virtual until idle": """
loop = cadence.Loop.virtual()
timer = loop.schedule(0.001, lambda tick: None, interval=0.001)
""",
    "until stop": """
publisher = loop.publish(0.001)
connection = publisher.connect()
""",
}
# The run each case makes, if not `loop.run(1e9)`.
RUNS = {
    "until idle": "loop.run_until_idle()",
    "virtual until idle": "loop.run_until_idle()",
    "until stop": "loop.run()",
}


@pytest.mark.parametrize("case", list(SETUPS))
def test_ctrl_c_stops_a_long_run(tmp_path: Path, case: str) -> None:
    script = tmp_path / "long_run.py"
    script.write_text(
        "import time, cadence\n"
        "loop = cadence.Loop()\n"
        f"{SETUPS[case]}\n"
        "print('running', flush=True)\n"
        f"{RUNS.get(case, 'loop.run(1e9)')}\n"
        "print('run returned', flush=True)\n"
    )
    source = str(Path(cadence.__file__).resolve().parents[1])
    child = subprocess.Popen(
        [sys.executable, str(script)],
        env={**os.environ, "PYTHONPATH": source},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "running\n"
        time.sleep(0.3)
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        stdout, stderr = child.communicate(timeout=10)
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    # An uncaught KeyboardInterrupt ends Python with SIGINT (a shell sees 130).
    assert child.returncode == -signal.SIGINT, stderr
    assert stderr.rstrip().endswith("KeyboardInterrupt"), stderr
    assert "Exception ignored" not in stderr
    assert stdout == ""
    assert took < 1.5  # the child's exit, on a loaded machine


def test_a_custom_sigint_handler_is_left_alone_and_runs_during_the_run(
    loop: cadence.Loop,
) -> None:
    heard: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        heard.append(signum)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        ticks: list[Tick] = []
        publisher = loop.publish(0.01)
        _sub1 = publisher.subscribe(ticks.append)
        kill = threading.Timer(0.15, os.kill, (os.getpid(), signal.SIGINT))
        with publisher.connect():
            kill.start()
            started = time.monotonic()
            loop.run(0.5)  # not interrupted: the handler does not raise
            took = time.monotonic() - started
        kill.join()
        assert heard == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is handler
        assert 0.45 <= took < 1.5
        assert len(ticks) >= 20
    finally:
        signal.signal(signal.SIGINT, previous)


def test_the_default_handler_is_back_after_every_run(loop: cadence.Loop) -> None:
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    seen: list[object] = []
    loop.schedule(0.0, lambda tick: seen.append(signal.getsignal(signal.SIGINT)))
    loop.run(0.15)
    assert seen == [_run.on_sigint]  # replaced while the main thread runs the loop
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    def explode(tick: Tick) -> None:
        raise KeyboardInterrupt

    loop.schedule(0.0, explode)
    with pytest.raises(KeyboardInterrupt):
        loop.run(0.3)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    worker_saw: list[object] = []
    other = threading.Thread(target=loop.run, args=(0.01,))
    loop.schedule(0.0, lambda tick: worker_saw.append(signal.getsignal(signal.SIGINT)))
    other.start()
    other.join()
    assert worker_saw == [signal.default_int_handler]  # other threads get no signals


def test_sigint_during_a_run_raises_within_50ms_with_one_thread(loop: cadence.Loop) -> None:
    """No watcher thread: the signal interrupts the poll on the loop's descriptor. The signal
    comes from a timer callback (os.kill, delivered at once to this process's only thread)."""
    assert threading.active_count() == 1
    counts: list[int] = []
    sent: list[float] = []

    def send(tick: Tick) -> None:
        counts.append(threading.active_count())
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    ticker = loop.schedule(
        0.02, lambda tick: counts.append(threading.active_count()), interval=0.02
    )
    for delay in (0.15, 0.3):  # the second run begins with the ticker already on its grid
        loop.schedule(delay, send)
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            loop.run(10)
        took = time.monotonic() - sent[-1]
        assert 0 <= took < 0.05, took
        assert 0.1 < time.monotonic() - started < 1.5
    ticker.cancel()
    assert counts
    assert set(counts) == {1}
    assert threading.active_count() == 1


@pytest.mark.parametrize("run", ["loop.run(10)", "loop.run_until_idle()"])
def test_sigint_while_the_loop_sleeps_in_poll_raises_at_once(tmp_path: Path, run: str) -> None:
    """A signal from outside, during the poll (nothing due for 9 s): KeyboardInterrupt within
    50 ms of the signal, with one thread in the process; a run until idle waits as a run does."""
    script = tmp_path / "sleeping_run.py"
    script.write_text(
        "import os, signal, threading, time, cadence\n"
        "loop = cadence.Loop()\n"
        "loop.schedule(9.0, lambda tick: None)\n"
        "loop.schedule(0.1, lambda tick: print('threads', threading.active_count(), flush=True))\n"
        "try:\n"
        f"    {run}\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', time.monotonic_ns(), threading.active_count(), flush=True)\n"
    )
    source = str(Path(cadence.__file__).resolve().parents[1])
    child = subprocess.Popen(
        [sys.executable, str(script)],
        env={**os.environ, "PYTHONPATH": source},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "threads 1\n"  # inside a callback of the run
        time.sleep(0.05)  # back in the poll: the next wake-up is 9 s away
        sent = time.monotonic_ns()  # the same clock in both processes (CLOCK_MONOTONIC)
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().split()
        child.communicate(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert line[0] == "interrupted", line
    assert line[2] == "1", line
    assert 0 <= (int(line[1]) - sent) / 1e9 < 0.05
    assert child.returncode == 0


def test_a_main_thread_run_keeps_the_grid_and_sleeps_between_wakeups(loop: cadence.Loop) -> None:
    started = time.monotonic()
    loop.run(0.35)  # idle: sleeps, never wakes
    assert time.monotonic() - started >= 0.35
    assert loop.wakeups == 0

    ticks: list[Tick] = []
    late: list[float] = []
    publisher = loop.publish(0.03)

    def on_tick(tick: Tick) -> None:
        ticks.append(tick)
        late.append(loop.now() - tick.fire_date)

    _sub2 = publisher.subscribe(on_tick)
    connected = loop.now()
    with publisher.connect():
        loop.run(0.5)
    assert len(ticks) >= 10
    assert 0.03 <= ticks[0].fire_date - connected < 0.04  # connect reads the clock afresh
    for number, tick in enumerate(ticks):
        assert tick.fire_date - ticks[0].fire_date == pytest.approx(0.03 * number, abs=1e-6)
        assert tick.skipped == 0
    assert min(late) >= 0  # never early
    assert len(ticks) - 1 <= loop.wakeups <= len(ticks)  # one wake-up per tick, no slices


def test_another_wakeup_fd_is_left_alone_and_ctrl_c_still_ends_the_run(loop: cadence.Loop) -> None:
    """asyncio keeps the wake-up fd while its loop runs; a run neither needs nor touches it."""
    theirs, other_end = socket.socketpair()
    theirs.setblocking(False)
    previous = signal.set_wakeup_fd(theirs.fileno())
    try:
        kill = threading.Timer(0.15, os.kill, (os.getpid(), signal.SIGINT))
        kill.start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            loop.run(5.0)
        kill.join()
        assert time.monotonic() - started < 1.5
        assert signal.set_wakeup_fd(theirs.fileno()) == theirs.fileno()  # still theirs
    finally:
        signal.set_wakeup_fd(previous)
        theirs.close()
        other_end.close()


def test_the_loop_is_busy_between_passes_too(loop: cadence.Loop) -> None:
    """Between two passes (while the main thread waits in poll) C is not running the loop; the
    binding still treats it as running."""
    refused: list[str] = []
    stop = threading.Event()

    def hammer() -> None:
        attempts: dict[str, Callable[[], object]] = {
            "close": loop.close,
            "start_thread": loop.start_thread,
            "run": lambda: loop.run(0.0),
            "run_pass": loop.run_pass,
        }
        while not stop.is_set():
            for name, attempt in attempts.items():
                try:
                    attempt()
                except cadence.LoopBusy:
                    refused.append(name)
                else:
                    refused.append(f"{name} was allowed")
            time.sleep(0.001)

    other = threading.Thread(target=hammer)
    loop.schedule(0.0, lambda tick: other.start())
    loop.run(0.45)
    stop.set()
    other.join()
    assert refused
    assert not [entry for entry in refused if "allowed" in entry]
    assert not loop.closed
    assert not loop.has_thread


def test_stop_ends_a_run_from_any_thread(loop: cadence.Loop) -> None:
    for delay in (0.05, 0.1, 0.2, 0.25):
        stopper = threading.Timer(delay, loop.stop)
        stopper.start()
        started = time.monotonic()
        loop.run(5.0)
        assert time.monotonic() - started < delay + 1.0
        stopper.join()
    loop.stop()  # not running: does nothing, and the next run is whole
    started = time.monotonic()
    loop.run(0.25)
    assert time.monotonic() - started >= 0.25


def test_run_without_a_duration_runs_until_stop(loop: cadence.Loop) -> None:
    """From a callback, and from another thread while the main thread sleeps in poll with nothing
    armed (the stop wakes the poll); math.inf is the same as no duration."""
    stopped: list[float] = []

    def stop(tick: Tick) -> None:
        stopped.append(tick.fire_date)
        loop.stop()

    started = loop.now()
    loop.schedule(0.1, stop)
    loop.run()
    assert stopped
    assert stopped[0] - started >= 0.1
    assert loop.now() - stopped[0] < 1.0

    for seconds in (None, math.inf):
        stopper = threading.Timer(0.1, loop.stop)
        stopper.start()
        began = time.monotonic()
        loop.run(seconds)
        assert 0.09 <= time.monotonic() - began < 1.1
        stopper.join()
    assert loop.armed_timer_count == 0  # the stop's wake-up fired
    with pytest.raises(cadence.InvalidArgument):
        cadence.Loop.virtual().run()  # a virtual clock would run to its end


def _glue_frame(depth: int) -> FrameType:
    """The frame ``depth`` levels above the caller's caller (the callback that asks)."""
    return sys._getframe(depth + 2)


@pytest.mark.parametrize(
    ("kind", "depth", "glue"),
    [
        ("one-shot", 0, "batch"),  # C hands one-shots over in batches
        ("repeating", 0, "fire"),
        ("subscription", 0, "fire"),
        ("countdown", 1, "call"),  # countdown -> call -> the countdown's userdata -> the callback
    ],
)
def test_a_sigint_in_the_c_callbacks_is_recorded_and_anywhere_else_raised(
    loop: cadence.Loop, kind: str, depth: int, glue: str
) -> None:
    """The SIGINT handler tells the binding's C callbacks (``_state.GLUE``, by code object:
    a KeyboardInterrupt raised in their own code would escape their ``try`` into ctypes, which
    drops it) from every other frame. This pins that: the caller of each kind of callback is
    one of them, a signal arriving there is recorded for the run (the callback goes on, the run
    raises), and one arriving in the callback's own frame raises at once."""
    after: list[str] = []

    def callback(*args: object) -> None:
        frame = _glue_frame(depth)
        assert frame.f_code in cadence._state.GLUE
        assert frame.f_code.co_name == glue
        _run.on_sigint(signal.SIGINT, frame)  # as if the signal came there: recorded
        after.append("recorded")
        with pytest.raises(KeyboardInterrupt):
            _run.on_sigint(signal.SIGINT, sys._getframe(0))  # in the callback: raised
        after.append("raised")

    made: list[object] = []
    if kind == "one-shot":
        made.append(loop.schedule(0.0, callback))
    elif kind == "repeating":
        made.append(loop.schedule(0.0, callback, interval=10.0))
    elif kind == "subscription":
        publisher = loop.publish(0.001).autoconnect()
        made.append(publisher.subscribe(callback))
    else:
        made.append(loop.countdown(loop.now() + 10.0, 5.0, callback))
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        loop.run(5.0)
    assert time.monotonic() - started < 4.0  # the recorded interrupt stopped the run
    assert after == ["recorded", "raised"]
    for each in made:
        each.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("run", ["Loop.run", "EventLoop"])
def test_another_sigint_handler_is_kept_and_what_it_raises_in_the_callbacks_is_recorded(
    loop: cadence.Loop, run: str
) -> None:
    """A SIGINT handler of the program's own (``asyncio.Runner``'s raises KeyboardInterrupt at
    the second Ctrl-C) still runs while the main thread runs a loop, but what it raises in the
    binding's C callbacks is raised from the run after the pass, not dropped by ctypes."""
    import cadence.asyncio as ca

    def mine(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt("mine")

    after: list[str] = []

    def callback(_: Tick) -> None:
        installed = signal.getsignal(signal.SIGINT)
        assert isinstance(installed, _run.Glued)
        assert installed.handler is mine
        installed(signal.SIGINT, _glue_frame(0))  # as if the signal came there: recorded
        after.append("recorded")
        with pytest.raises(KeyboardInterrupt, match="mine"):
            installed(signal.SIGINT, sys._getframe(0))  # in the callback: raised
        after.append("raised")

    def run_it() -> None:
        if run == "Loop.run":
            loop.schedule(0.0, callback)
            loop.run(5.0)
            return
        event_loop = ca.EventLoop()
        try:
            event_loop.cadence.schedule(0.0, callback)
            event_loop.run_until_complete(event_loop.create_future())  # never set
        finally:
            event_loop.close()

    previous = signal.signal(signal.SIGINT, mine)
    try:
        with pytest.raises(KeyboardInterrupt, match="mine"):
            run_it()
        assert signal.getsignal(signal.SIGINT) is mine  # put back
    finally:
        signal.signal(signal.SIGINT, previous)
    assert after == ["recorded", "raised"]


def test_an_interrupt_as_a_run_starts_leaves_the_loop_free(
    loop: cadence.Loop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C in the flush of recorded cancels with which a run starts (after it has claimed
    the loop) left the loop claimed: every later run and close() raised LoopBusy."""
    import asyncio

    import cadence.asyncio as ca
    from cadence import _cancels

    flush = _cancels.flush

    def interrupted() -> None:
        monkeypatch.setattr(_cancels, "flush", flush)  # once
        raise KeyboardInterrupt

    monkeypatch.setattr(_cancels, "flush", interrupted)
    with pytest.raises(KeyboardInterrupt):
        loop.run(0)
    loop.run(0)  # free again
    event_loop = ca.EventLoop()
    try:
        monkeypatch.setattr(_cancels, "flush", interrupted)
        with pytest.raises(KeyboardInterrupt):
            event_loop.run_until_complete(event_loop.create_future())
        assert event_loop.run_until_complete(asyncio.sleep(0, "ran")) == "ran"
    finally:
        event_loop.close()
