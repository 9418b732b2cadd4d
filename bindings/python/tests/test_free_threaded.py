"""The gate on the hot calls that keep the GIL (ctypes.PyDLL): they do on an interpreter with a
GIL, and on a free-threaded one without it (``sys._is_gil_enabled()`` false) every call goes
through ctypes.CDLL, whose reasoning needs no GIL. The flag is simulated in a fresh process,
before the package is imported."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from collections.abc import Callable

import pytest

from cadence import _lib, cancellable

#: The conftest fixture that runs source in a child process: (source, timeout in seconds).
Child = Callable[[str, float], "subprocess.CompletedProcess[str]"]


def keeps_gil(function: object) -> bool:
    """Whether a ctypes function is called as PyDLL's are, keeping the GIL."""
    flags: int = type(function)._flags_  # type: ignore[attr-defined]
    return flags == ctypes.PyDLL._func_flags_


def test_with_a_gil_the_hot_calls_keep_it() -> None:
    assert _lib.GIL is True
    kept = {name for name in _lib.PROTOTYPES if keeps_gil(getattr(_lib.lib, name))}
    assert kept == _lib.KEEP_GIL
    assert "cadence_loop_schedule_default" in kept
    assert keeps_gil(cancellable._held)


def test_the_flag_is_read_from_sys_and_absent_means_a_gil(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "_is_gil_enabled", lambda: False, raising=False)
    assert _lib.gil_enabled() is False
    monkeypatch.setattr(sys, "_is_gil_enabled", lambda: True)
    assert _lib.gil_enabled() is True
    monkeypatch.delattr(sys, "_is_gil_enabled")  # before 3.13
    assert _lib.gil_enabled() is True


WITHOUT_GIL = """
import sys, threading
sys._is_gil_enabled = lambda: False  # a free-threaded build running without the GIL
import ctypes, cadence
from cadence import _lib, cancellable

pydll = ctypes.PyDLL._func_flags_
kept = [n for n in _lib.PROTOTYPES if type(getattr(_lib.lib, n))._flags_ == pydll]
print("GIL", _lib.GIL, "kept", kept, "held", cancellable._held is cancellable._steal)

# Every kind of call still works: schedule, fire, cancel from another thread while the loop's
# thread runs callbacks.
ticks, three = [], threading.Event()
def tick(t):
    ticks.append(t)
    if len(ticks) >= 3:
        three.set()
with cadence.Loop() as loop:
    loop.start_thread()
    timers = [loop.schedule(0.001, tick, interval=0.001) for _ in range(20)]
    assert three.wait(10)
    print("cancelled", sum(timer.cancel() for timer in timers))
    loop.stop_thread()
with cadence.Loop.virtual() as virtual:
    fired = []
    virtual.schedule(1.0, fired.append)
    virtual.run(2.0)
    print("virtual", [t.fire_date for t in fired])
"""


def test_without_a_gil_every_call_goes_through_cdll(run_child: Child) -> None:
    result = run_child(WITHOUT_GIL, 60.0)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "GIL False kept [] held True",
        "cancelled 20",
        "virtual [1.0]",
    ]
