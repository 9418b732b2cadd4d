"""A timer's cancel keeps the GIL only while no other thread can be calling callbacks (it waits
for a callback running on another thread, which needs the GIL): cancels from the main thread
while callbacks run on a loop's own thread, or in a pass on another thread, never deadlock."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable

import cadence
from cadence import Tick, _state

#: The conftest fixture that runs source in a child process: (source, timeout in seconds).
Child = Callable[[str, float], "subprocess.CompletedProcess[str]"]

CANCELS_WHILE_CALLBACKS_RUN = """
import threading, time, cadence
started, returned = threading.Event(), threading.Event()

def slow(tick):
    started.set()
    time.sleep(0.05)  # the GIL is free meanwhile: the main thread cancels
    returned.set()

def busy(tick):
    sum(range(2000))  # Python code: the loop's thread takes the GIL back and forth

with cadence.Loop() as loop:
    loop.start_thread()
    for case in ("one-shot", "repeating"):
        started.clear(); returned.clear()
        others = [loop.schedule(0.0, busy) for _ in range(300)]
        later = [loop.schedule(60.0, busy) for _ in range(300)]
        timer = loop.schedule(0.001, slow, interval=0.001 if case == "repeating" else None)
        assert started.wait(10)
        stopped = timer.cancel()  # waits for slow to return
        assert returned.is_set(), case
        assert stopped is (case == "repeating"), (case, stopped)
        assert all(t.cancel() for t in later)
        for t in others:
            t.cancel()
    pass_started = threading.Event()

    def in_a_pass(tick):
        pass_started.set()
        time.sleep(0.05)
        returned.set()

pass_loop = cadence.Loop()
returned.clear()
timer = pass_loop.schedule(0.0, in_a_pass)
passer = threading.Thread(target=pass_loop.run_pass)
passer.start()
assert pass_started.wait(10)
assert timer.cancel() is False and returned.is_set()
passer.join()
print("no deadlock")
"""


def test_cancels_from_main_while_callbacks_run_on_other_threads(run_child: Child) -> None:
    done = run_child(CANCELS_WHILE_CALLBACKS_RUN, 60)  # about 1 s; a deadlock never returns
    assert (done.returncode, done.stdout, done.stderr) == (0, "no deadlock\n", "")


def test_runs_record_the_threads_that_call_callbacks(loop: cadence.Loop) -> None:
    """RUNS names every thread that may call callbacks, and nothing once they are over."""
    seen: list[list[object]] = []
    me = threading.get_ident()

    def record(tick: Tick) -> None:
        seen.append(list(_state.RUNS))
        assert later.cancel() is True  # RUNS names this thread: the GIL is let go in C

    later = loop.schedule(60.0, record)
    loop.schedule(0.0, record)
    loop.run_pass()
    assert seen == [[me]]
    assert _state.RUNS == []
    loop.schedule(0.0, lambda tick: seen.append(list(_state.RUNS)))
    loop.run(0.0)
    assert seen[1] == [me]
    loop.start_thread()
    assert list(_state.RUNS) == [loop._state]
    loop.stop_thread()
    loop.stop_thread()  # a second stop records nothing more
    assert _state.RUNS == []
