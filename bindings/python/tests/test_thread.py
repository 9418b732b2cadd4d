"""A loop on a thread of its own: timers without running the loop, and where exceptions go."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable

import pytest

import cadence
from cadence import Tick

#: The conftest fixture that runs source in a child process: (source, timeout in seconds).
Child = Callable[[str, float], "subprocess.CompletedProcess[str]"]


def wait_for(condition: threading.Event, what: str) -> None:
    assert condition.wait(timeout=10.0), f"timed out waiting for {what}"


def test_timers_scheduled_from_main_fire_on_the_loop_thread(loop: cadence.Loop) -> None:
    threads: list[int] = []
    three = threading.Event()

    def record(tick: Tick) -> None:
        threads.append(threading.get_ident())
        if len(threads) == 3:
            three.set()

    assert not loop.has_thread
    loop.start_thread()
    assert loop.has_thread
    assert loop.running
    assert repr(loop).startswith("<cadence.Loop running on its thread")
    publisher = loop.publish(0.02)
    _sub1 = publisher.subscribe(record)  # subscribed and connected from the main thread
    _conn2 = publisher.connect()
    wait_for(three, "three ticks")
    loop.stop_thread()  # waits for the thread to end
    assert not loop.has_thread
    assert not loop.running
    heard = len(threads)
    assert len(set(threads)) == 1
    assert threads[0] != threading.get_ident()
    loop.stop_thread()  # no thread: nothing to do
    loop.run(0.05)  # the loop can be run by hand again
    assert len(threads) > heard
    # Every tick after stop_thread returned came from this run: none from the loop's old thread.
    assert set(threads[heard:]) == {threading.get_ident()}
    _conn2.close()


def test_run_close_and_a_second_thread_are_loop_busy_while_it_runs(loop: cadence.Loop) -> None:
    loop.start_thread()
    try:
        with pytest.raises(cadence.LoopBusy):
            loop.run(0.01)
        with pytest.raises(cadence.LoopBusy, match="on a thread of its own, got one that is"):
            loop.close()
        with pytest.raises(cadence.LoopBusy):
            loop.start_thread()
        assert not loop.closed
    finally:
        loop.stop_thread()
    loop.close()
    assert loop.closed


def test_stop_thread_from_a_callback_is_loop_busy(loop: cadence.Loop) -> None:
    seen: list[BaseException] = []
    attempted = threading.Event()
    later = threading.Event()

    def try_to_stop(tick: Tick) -> None:
        try:
            loop.stop_thread()  # the thread cannot wait for itself
        except cadence.LoopBusy as error:
            seen.append(error)
        attempted.set()

    with loop.threaded():
        loop.schedule(0.01, try_to_stop)
        wait_for(attempted, "the callback")
        loop.schedule(0.01, lambda tick: later.set())
        wait_for(later, "a later timer")  # the thread went on
    assert [type(error) for error in seen] == [cadence.LoopBusy]
    assert "own thread" in str(seen[0])


def test_stop_does_not_end_the_thread(loop: cadence.Loop) -> None:
    after_stop = threading.Event()
    with loop.threaded():
        loop.schedule(0.0, lambda tick: loop.stop())
        loop.schedule(0.05, lambda tick: after_stop.set())
        wait_for(after_stop, "a timer after stop()")
        assert loop.has_thread


def test_an_exception_on_the_loop_thread_goes_to_threading_excepthook(
    loop: cadence.Loop, monkeypatch: pytest.MonkeyPatch
) -> None:
    reported: list[threading.ExceptHookArgs] = []
    hooked = threading.Event()

    def hook(args: threading.ExceptHookArgs) -> None:
        reported.append(args)
        hooked.set()

    monkeypatch.setattr(threading, "excepthook", hook)
    ticks: list[Tick] = []
    two_more = threading.Event()

    def explode(tick: Tick) -> None:
        raise ValueError("bad tick")

    def count(tick: Tick) -> None:
        ticks.append(tick)
        if len(ticks) >= 2 and hooked.is_set():
            two_more.set()

    with loop.threaded():
        publisher = loop.publish(0.02)
        _sub3 = publisher.subscribe(count)
        _conn4 = publisher.connect()
        loop.schedule(0.01, explode)
        wait_for(hooked, "threading.excepthook")
        ticks.clear()
        wait_for(two_more, "ticks after the exception")  # the loop went on
    # stop_thread (leaving the block) did not raise it again, and neither does a later run.
    loop.run(0.05)
    assert len(reported) == 1
    args = reported[0]
    assert args.exc_type is ValueError
    assert str(args.exc_value) == "bad tick"
    assert args.exc_traceback is not None
    assert args.thread is not None
    assert args.thread.ident != threading.get_ident()
    _conn4.close()


def test_a_threading_excepthook_that_raises_goes_to_sys_excepthook(
    loop: cadence.Loop, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As for a threading.Thread: the hook's own exception is passed to sys.excepthook, and
    # nothing reaches ctypes (which would print "Exception ignored" and drop it).
    def failing_hook(args: threading.ExceptHookArgs) -> None:
        raise RuntimeError(f"hook failed on {args.exc_value}")

    reported: list[BaseException | None] = []
    hooked = threading.Event()

    def sys_hook(kind: type[BaseException], value: BaseException | None, tb: object) -> None:
        reported.append(value)
        hooked.set()

    monkeypatch.setattr(threading, "excepthook", failing_hook)
    monkeypatch.setattr(sys, "excepthook", sys_hook)

    def explode(tick: Tick) -> None:
        raise ValueError("bad tick")

    later = threading.Event()
    with loop.threaded():
        loop.schedule(0.0, explode)
        wait_for(hooked, "sys.excepthook")
        loop.schedule(0.0, lambda tick: later.set())
        wait_for(later, "a timer after the failing hook")  # the loop went on
    assert [type(error) for error in reported] == [RuntimeError]
    assert str(reported[0]) == "hook failed on bad tick"


def test_threaded_stops_the_thread_when_the_block_raises(loop: cadence.Loop) -> None:
    inside: list[bool] = []

    def body() -> None:
        with loop.threaded():
            inside.append(loop.has_thread)
            raise KeyError("body")

    with pytest.raises(KeyError):
        body()
    assert inside == [True]
    assert not loop.has_thread


def test_leaving_the_loops_block_stops_its_thread() -> None:
    fired = threading.Event()
    with cadence.Loop() as loop:
        loop.start_thread()
        _sub5 = loop.publish(0.01).autoconnect().subscribe(lambda tick: fired.set())
        wait_for(fired, "a tick")
    assert loop.closed
    assert not loop.has_thread


def test_a_threaded_loop_stays_alive_until_its_thread_stops() -> None:
    ticks: list[Tick] = []
    fired = threading.Event()

    def record(tick: Tick) -> None:
        ticks.append(tick)
        fired.set()

    loop = cadence.Loop()
    loop.start_thread()
    _sub6 = loop.publish(0.01).autoconnect().subscribe(record)
    wait_for(fired, "a tick")
    alive = weakref.ref(loop)
    del loop
    gc.collect()
    kept = alive()
    assert kept is not None  # its thread may still call its callbacks: the binding holds it
    fired.clear()
    wait_for(fired, "a tick after the last reference was dropped")

    kept.stop_thread()
    with pytest.warns(ResourceWarning, match="still active"):
        del kept, _sub6  # the subscription holds its loop
    gc.collect()
    assert alive() is None  # without its thread, it is collected, and destroyed
    heard = len(ticks)
    time.sleep(0.05)  # a negative check: gives a tick of a loop that outlived its end a chance
    assert len(ticks) == heard


def test_a_loop_dropped_on_its_own_thread_goes_on_until_stopped() -> None:
    holder = [cadence.Loop()]
    alive = weakref.ref(holder[0])
    dropped = threading.Event()
    ticked = threading.Event()

    def drop_the_loop(tick: Tick) -> None:
        holder.clear()  # the last reference of the program, dropped on the loop's own thread
        gc.collect()
        dropped.set()

    holder[0].start_thread()
    holder[0].schedule(0.01, drop_the_loop)
    wait_for(dropped, "the callback")
    loop = alive()
    assert loop is not None
    assert loop.has_thread
    loop.schedule(0.01, lambda tick: ticked.set())
    wait_for(ticked, "a timer scheduled afterwards")
    with loop:  # stops the thread, then closes
        pass


def test_a_countdown_and_a_poller_on_the_loop_thread(loop: cadence.Loop) -> None:
    threads: set[int] = set()
    finished = threading.Event()
    polled = threading.Event()

    def poll(poll: cadence.Poll) -> None:
        threads.add(threading.get_ident())
        polled.set()

    with loop.threaded():
        _countdown = loop.countdown(
            loop.now() + 0.05, 0.01, lambda remaining: None, on_finish=finished.set
        )
        with loop.poller(0.02, poll):
            wait_for(finished, "the countdown")
            wait_for(polled, "a poll")
    assert len(threads) == 1
    assert threading.get_ident() not in threads


def test_a_thread_left_running_at_exit_is_stopped(run_child: Child) -> None:
    result = run_child(
        "import time, cadence\n"
        "loop = cadence.Loop()\n"
        "loop.start_thread()\n"
        "subscription = loop.publish(0.001).autoconnect().subscribe(lambda tick: None)\n"
        "time.sleep(0.05)\n"
        "print('exiting')\n",
        60,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "exiting\n", "")


def test_calls_from_other_threads_are_not_counted_as_wakeups(loop: cadence.Loop) -> None:
    started = threading.Event()
    fired = threading.Event()

    def fire_and_stop(tick: Tick) -> None:
        fired.set()
        loop.stop()

    loop.schedule(0.0, lambda tick: started.set())
    worker = threading.Thread(target=loop.run)  # until stopped; one C call: not sliced
    worker.start()
    wait_for(started, "the run's first pass")  # the loop runs: the calls below wake it
    before = loop.wakeups
    for _ in range(5):  # each call from this thread wakes the sleeping loop
        loop.schedule(100.0, lambda tick: None)
        time.sleep(0.01)  # lets the loop wake and sleep again: five wake-ups, not one
    loop.schedule(0.02, fire_and_stop)
    worker.join(timeout=10.0)
    assert fired.is_set()
    assert loop.wakeups - before == 1  # the one timer; the calls were not wake-ups to fire timers


CLOSE_DURING_SLOW_DELIVERIES = """
import time, cadence
running = [0]
def slow(tick):
    running[0] += 1
    time.sleep(0.05)
    running[0] -= 1
loop = cadence.Loop()
publisher = loop.publish(0.01)
connection = publisher.connect()
busy = [publisher.subscribe(slow) for _ in range(2)]  # every delivery outlasts the interval
cancelled = publisher.subscribe(lambda tick: None)
cancelled.cancel()
holder = publisher.subscribe(lambda tick, keep=cancelled: None)  # the last reference to it
del cancelled
loop.start_thread()
while not running[0]:
    time.sleep(0.001)
holder.close()  # frees the cancelled subscription too, whose release goes to C
print("closed", flush=True)
loop.stop_thread()
loop.close()
"""


def test_closing_during_slow_deliveries_returns(run_child: Child) -> None:
    """Closing a subscription waits only for the tick being delivered, not for every later one
    of a timer that is always busy, and frees what its callback held outside the binding's lock
    (a release that waits in C while holding it would block the deliveries it waits for)."""
    # About 1 s; a cancel waiting for a quiet moment took 15 s and more.
    done = run_child(CLOSE_DURING_SLOW_DELIVERIES, 10)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "closed\n"


def test_no_thread_but_the_loop_thread_asked_for() -> None:
    """The package starts no thread of its own: not to run, collect, close or wait."""
    before = {thread.ident for thread in threading.enumerate()}
    loop = cadence.Loop()
    timer = loop.schedule(0.01, lambda tick: None, interval=0.01)
    subscription = loop.publish(0.01).autoconnect().subscribe(lambda tick: None)
    loop.run(0.05)
    assert {thread.ident for thread in threading.enumerate()} == before
    ticked = threading.Event()
    loop.schedule(0.01, lambda tick: ticked.set())
    loop.start_thread()
    assert len(threading.enumerate()) == len(before)  # the loop's thread is C's, not Python's
    wait_for(ticked, "a tick on the loop's thread")
    loop.stop_thread()
    loop.close()
    del timer, subscription, loop
    gc.collect()
    assert {thread.ident for thread in threading.enumerate()} == before


def test_start_thread_racing_stop_thread_leaves_has_thread_true_to_the_engine(
    loop: cadence.Loop,
) -> None:
    """A stop_thread that C finished before a racing start_thread started the loop's thread must
    not mark the loop as having none: has_thread then says False while a thread runs it, and a
    cancel would wait for that thread's callback while keeping the GIL."""
    for _ in range(1000):
        started = threading.Thread(target=loop.start_thread)
        started.start()
        loop.stop_thread()
        started.join()
        if loop.has_thread:
            loop.stop_thread()
        else:
            loop.run(0)  # LoopBusy from C if a thread runs the loop after all
    assert not loop.has_thread


def test_closing_a_loop_while_another_thread_cancels_its_pollers() -> None:
    """A cancel on another thread may still call the loop's release function after the loop's
    destroy returned (cadence_loop_close): the binding keeps its C callbacks for that, so the
    race ends with every poller cancelled or closed, and no crash (it crashed 2 runs in 3)."""

    def close(loop: cadence.Loop, start: threading.Barrier) -> None:
        start.wait()
        loop.stop_thread()
        loop.close()

    def cancel(pollers: list[cadence.Poller], start: threading.Barrier, out: list[bool]) -> None:
        start.wait()
        for poller in pollers:
            try:
                out.append(poller.cancel())
            except cadence.BadHandle:
                out.append(False)

    for _ in range(150):
        loop = cadence.Loop()
        loop.start_thread()
        pollers = [loop.poller(0.001, lambda poll: None) for _ in range(10)]
        start, outcomes = threading.Barrier(2), list[bool]()
        threads = [
            threading.Thread(target=close, args=(loop, start)),
            threading.Thread(target=cancel, args=(pollers, start, outcomes)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert loop.closed
        assert len(outcomes) == 10
        assert all(poller.closed for poller in pollers)
