"""Ctrl-C: ``Loop.run`` on the main thread is woken by signals (through CPython's wake-up fd, or
in slices when that fd is taken) and turns SIGINT into KeyboardInterrupt; neither changes the
loop's semantics."""

from __future__ import annotations

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
from cadence import Tick, _running

# What the child runs before `loop.run(1e9)` on `loop`, by case.
SETUPS = {
    "idle": "",
    "timer": """
publisher = loop.publish(0.001)
publisher.sink(lambda tick: None)
publisher.connect()
""",
    "busy callback": """
publisher = loop.publish(0.01)
publisher.sink(lambda tick: time.sleep(5))
publisher.connect()
""",
    "nested run": """
inner = cadence.Loop()
loop.schedule(0.01, lambda tick: inner.run(1e9))
""",
    "virtual": """
loop = cadence.Loop.virtual()
publisher = loop.publish(0.001)
publisher.sink(lambda tick: None)
publisher.connect()
""",
    # A referenced repeating timer keeps a run until idle going for ever, virtual or not; one
    # that calls no Python code (a connected publisher without subscribers) leaves only the
    # wake-up fd to see the signal.
    "until idle": """
loop.schedule(0.001, lambda tick: None, interval=0.001)
""",
    "virtual until idle": """
loop = cadence.Loop.virtual()
loop.publish(0.001).connect()
""",
}
# The run each case makes, if not `loop.run(1e9)`.
RUNS = {"until idle": "loop.run_until_idle()", "virtual until idle": "loop.run_until_idle()"}


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
        publisher.sink(ticks.append)
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
    assert seen == [_running._on_sigint]  # replaced while the main thread runs the loop
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


def test_a_main_thread_run_is_one_call_into_c_and_keeps_the_grid(loop: cadence.Loop) -> None:
    returns = _running._watcher.returns if _running._watcher else 0
    started = time.monotonic()
    loop.run(0.35)  # idle
    assert time.monotonic() - started >= 0.35
    assert _running._watcher is not None
    assert _running._watcher.returns == returns + 1  # no slices
    assert loop.wakeups == 0

    ticks: list[Tick] = []
    publisher = loop.publish(0.03)
    publisher.sink(ticks.append)
    connected = loop.now()
    with publisher.connect():
        loop.run(0.5)  # five slices
    assert len(ticks) >= 10
    assert 0.03 <= ticks[0].fire_date - connected < 0.04  # connect reads the clock afresh
    for number, tick in enumerate(ticks):
        assert tick.fire_date - ticks[0].fire_date == pytest.approx(0.03 * number, abs=1e-6)
        assert tick.skipped == 0
    assert loop.wakeups <= len(ticks)


def test_with_the_wakeup_fd_taken_a_run_falls_back_to_slices(loop: cadence.Loop) -> None:
    """asyncio keeps the wake-up fd while its loop runs; a run then goes in slices, Ctrl-C still
    ends it, and the other fd is left in place."""
    theirs, other_end = socket.socketpair()
    theirs.setblocking(False)
    previous = signal.set_wakeup_fd(theirs.fileno())
    try:
        returns = _running._watcher.returns if _running._watcher else 0
        kill = threading.Timer(0.15, os.kill, (os.getpid(), signal.SIGINT))
        kill.start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            loop.run(5.0)
        kill.join()
        assert time.monotonic() - started < 1.5
        assert signal.set_wakeup_fd(theirs.fileno()) == theirs.fileno()  # still theirs
        assert (_running._watcher.returns if _running._watcher else 0) == returns  # sliced
    finally:
        signal.set_wakeup_fd(previous)
        theirs.close()
        other_end.close()


def test_the_loop_is_busy_between_slices_too(loop: cadence.Loop) -> None:
    """Between two calls into C (after a signal, or between slices) C is not running the loop;
    the binding still treats it as running."""
    refused: list[str] = []
    stop = threading.Event()

    def hammer() -> None:
        attempts: dict[str, Callable[[], object]] = {
            "close": loop.close,
            "start_thread": loop.start_thread,
            "run": lambda: loop.run(0.0),
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
