"""A scheduled timer's cancel made where no other thread runs callbacks is recorded and handed to
C with the others in one call (``cadence._cancels``): every guarantee of an immediate cancel
holds, and each test here fails without the flush (or the skip) that it names."""

from __future__ import annotations

import gc
import subprocess
import threading
import time
from array import array
from collections.abc import Callable, Iterator

import pytest

import cadence
from cadence import _cancels, _table, cancellable

#: The conftest fixture that runs source in a child process: (source, timeout in seconds).
Child = Callable[[str, float], "subprocess.CompletedProcess[str]"]


@pytest.fixture
def loop() -> Iterator[cadence.Loop]:
    with cadence.Loop.virtual() as fresh:
        yield fresh


def _fire(calls: list[str], name: str) -> Callable[[cadence.Tick], object]:
    return lambda tick: calls.append(name)


def test_a_cancel_is_recorded_then_handed_over_at_the_next_pass(loop: cadence.Loop) -> None:
    calls: list[str] = []
    timer = loop.schedule(1.0, _fire(calls, "t"))
    assert timer.cancel() is True
    assert [timer._handle] == list(_cancels.PENDING)  # recorded, not yet in C
    assert _table.slots[timer._key] is _cancels.LET_GO  # the callback is let go at once
    loop.run(0)
    assert not _cancels.PENDING
    loop.run(2.0)
    assert calls == []


def test_true_exactly_once(loop: cadence.Loop) -> None:
    calls: list[str] = []
    timer = loop.schedule(1.0, _fire(calls, "t"))
    assert timer.cancel() is True
    assert timer.cancel() is False  # recorded already
    loop.run(0)
    assert timer.cancel() is False  # in C now
    fired = loop.schedule(1.0, _fire(calls, "fired"))
    loop.run(2.0)
    assert calls == ["fired"]
    assert fired.cancel() is False  # a one-shot that fired


def test_a_cancel_in_its_own_callback_or_after_it_started_is_false(loop: cadence.Loop) -> None:
    answers: list[bool] = []
    timers: list[cadence.ScheduledTimer] = []
    timers.append(loop.schedule(1.0, lambda tick: answers.append(timers[0].cancel())))
    loop.run(2.0)
    assert answers == [False]


def test_a_callback_cancelling_a_later_timer_of_the_same_pass(loop: cadence.Loop) -> None:
    """The batch's dispatcher skips a recorded timer: C hands it over in the same batch."""
    calls: list[str] = []
    answers: list[bool] = []
    later: list[cadence.ScheduledTimer] = []
    loop.schedule(1.0, lambda tick: answers.append(later[0].cancel()))
    later.append(loop.schedule(1.0, _fire(calls, "later")))
    after = loop.schedule(1.0, _fire(calls, "after"))
    loop.run(2.0)
    assert answers == [True]
    assert calls == ["after"]
    assert later[0].cancel() is False
    assert after.cancel() is False


def test_run_until_idle_returns_at_once_when_the_only_timer_was_cancelled(
    loop: cadence.Loop,
) -> None:
    """The run's start flushes: without it the virtual clock would step to the timer."""
    timer = loop.schedule(3600.0, lambda tick: None)  # kept: a collection would flush
    timer.cancel()
    loop.run_until_idle()
    assert loop.now() == 0.0


def test_run_until_idle_sees_a_cancel_made_by_a_callback(loop: cadence.Loop) -> None:
    """The end of the batch flushes: without it C would step on to the cancelled timer."""
    last: list[cadence.ScheduledTimer] = []
    loop.schedule(1.0, lambda tick: last[0].cancel())
    last.append(loop.schedule(5.0, lambda tick: None))
    loop.run_until_idle()
    assert loop.now() == 1.0


def test_a_run_on_another_thread_sees_the_cancel(loop: cadence.Loop) -> None:
    """A hand-over: the thread that starts the run flushes what this one recorded."""
    timer = loop.schedule(3600.0, lambda tick: None)
    timer.cancel()
    runner = threading.Thread(target=loop.run_until_idle)
    runner.start()
    runner.join()
    assert loop.now() == 0.0


def test_reads_see_the_cancel(loop: cadence.Loop) -> None:
    timer = loop.schedule(1.0, lambda tick: None)
    assert timer.cancel()
    assert loop.armed_timer_count == 0
    assert not loop.alive()
    assert loop.timeout() == float("inf")
    other = loop.schedule(1.0, lambda tick: None)
    other.cancel()
    assert other.pending is False
    assert other.cancelled is True
    last = loop.schedule(1.0, lambda tick: None)
    last.cancel()
    assert last.fire_date is None
    assert last.has_ref is False


def test_reset_after_a_recorded_cancel_raises(loop: cadence.Loop) -> None:
    timer = loop.schedule(1.0, lambda tick: None)
    timer.cancel()
    with pytest.raises(cadence.AlreadyCancelled):
        timer.reset(2.0)


def test_a_key_is_not_reused_while_c_may_still_fire_its_timer(loop: cadence.Loop) -> None:
    calls: list[str] = []
    cancelled = loop.schedule(1.0, _fire(calls, "cancelled"))
    cancelled.cancel()
    fresh = loop.schedule(1.0, _fire(calls, "fresh"))
    assert fresh._key != cancelled._key
    loop.run(2.0)
    assert calls == ["fresh"]


def test_a_recorded_timer_given_up_by_collection_is_cancelled(loop: cadence.Loop) -> None:
    """Its handle is given up only after the flush: given up first, a one-shot stays armed."""
    timer = loop.schedule(1.0, lambda tick: None)
    timer.cancel()
    del timer
    gc.collect()
    assert loop.armed_timer_count == 0


def test_closing_a_recorded_timer_or_its_loop(loop: cadence.Loop) -> None:
    calls: list[str] = []
    timer = loop.schedule(1.0, _fire(calls, "t"))
    timer.cancel()
    timer.close()
    with pytest.raises(cadence.BadHandle):
        timer.cancel()
    loop.run(2.0)
    assert calls == []
    held = _table.held()
    other = cadence.Loop.virtual()
    recorded = other.schedule(1.0, _fire(calls, "other"))
    recorded.cancel()
    other.close()
    _cancels.flush()
    assert _table.held() == held
    with pytest.raises(cadence.BadHandle):
        recorded.cancel()


def test_a_cancel_from_another_thread_while_a_loop_runs_goes_to_c_at_once() -> None:
    """Another thread may be calling callbacks: the cancel waits for a running one, as before."""
    with cadence.Loop() as real, real.threaded():
        started, release, done = threading.Event(), threading.Event(), threading.Event()
        calls: list[str] = []

        def slow(tick: cadence.Tick) -> None:
            started.set()
            release.wait(5.0)
            calls.append("slow")

        running = real.schedule(0.0, slow)
        pending = real.schedule(3600.0, _fire(calls, "pending"))
        assert started.wait(5.0)
        assert pending.cancel() is True
        assert not _cancels.PENDING  # not recorded: straight to C
        threading.Timer(0.05, release.set).start()
        assert running.cancel() is False  # waited for its callback, which had started
        assert calls == ["slow"]
        assert pending.pending is False
        real.schedule(0.0, lambda tick: done.set())
        assert done.wait(5.0)
        assert calls == ["slow"]  # "pending" never ran


def test_every_scheduled_timer_but_a_weak_one_is_recorded(loop: cadence.Loop) -> None:
    repeating = loop.schedule(1.0, lambda tick: None, interval=1.0)
    late = loop.schedule(1.0, lambda tick: None, tolerance=0.5, mode="common")
    target = _Target()
    weak = loop.schedule(1.0, target.method, weak=True)
    assert [repeating.cancel(), late.cancel()] == [True, True]
    assert [repeating._handle, late._handle] == list(_cancels.PENDING)
    assert weak.cancel() is True
    assert [repeating._handle, late._handle] == list(_cancels.PENDING)  # a weak one went to C
    assert [repeating.cancel(), late.cancel(), weak.cancel()] == [False] * 3
    assert loop.armed_timer_count == 0


class _Target:
    def method(self, tick: cadence.Tick) -> None:
        """A bound method to hold weakly."""


def test_a_repeating_timer_cancelled_in_a_pass_is_not_called_again(loop: cadence.Loop) -> None:
    """Two repeating timers due together: the first cancels the second, which C hands over
    only after the first's callback (and its flush)."""
    calls: list[str] = []
    second: list[cadence.ScheduledTimer] = []

    def first(tick: cadence.Tick) -> None:
        calls.append("first")
        if len(calls) == 3:
            assert second[0].cancel() is True

    kept = loop.schedule(1.0, first, interval=1.0)
    second.append(loop.schedule(1.0, _fire(calls, "second"), interval=1.0))
    loop.run(3.5)
    assert calls == ["first", "second", "first", "first"]  # cancelled at 2, before its call
    kept.cancel()


def test_a_repeating_timer_cancelling_itself(loop: cadence.Loop) -> None:
    ticks: list[float] = []
    answers: list[bool] = []
    timers: list[cadence.ScheduledTimer] = []

    def tick(at: cadence.Tick) -> None:
        ticks.append(at.fire_date)
        if len(ticks) == 2:
            answers.append(timers[0].cancel())

    timers.append(loop.schedule(1.0, tick, interval=1.0))
    loop.run_until_idle()
    assert (ticks, answers, loop.now()) == ([1.0, 2.0], [True], 2.0)
    assert timers[0].cancel() is False


def test_a_timer_keeps_its_key_until_it_is_collected(loop: cadence.Loop) -> None:
    """So that its cancel knows from the table alone whether it is pending: an ended timer's key
    holds nothing (ENDED, or LET_GO for a recorded cancel, also once C has it) and is reused only
    once the timer is gone."""
    held = _table.held()
    fired = loop.schedule(1.0, lambda tick: None)
    cancelled = loop.schedule(1.0, lambda tick: None)
    key, cancelled_key = fired._key, cancelled._key
    assert cancelled.cancel()
    loop.run(2.0)
    assert loop.armed_timer_count == 0  # C has the recorded cancel...
    assert _table.slots[cancelled_key] is _cancels.LET_GO  # ...and the flush left the slot as is
    assert _table.slots[key] is _table.ENDED
    assert _table.held() == held  # an ended timer's key holds no userdata
    fresh = [loop.schedule(1.0, lambda tick: None) for _ in range(200)]
    assert not {key, cancelled_key} & {timer._key for timer in fresh}
    assert fired.cancel() is False  # from C: the slot says it ended
    assert cancelled.cancel() is False
    del fired, cancelled
    gc.collect()
    for freed in key, cancelled_key:
        assert _table.slots[freed] is None
        assert _table.slots[freed + _table.OWNER] == 0
    assert {key, cancelled_key} <= set(_table._free)
    for timer in fresh:
        timer.cancel()


@pytest.fixture
def held_in_flight(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Makes every flush hold its records (taken from PENDING, not yet in C) until the event is
    set: the GIL is free meanwhile, as during C's batch, which may wait for a callback."""
    real, go = _cancels.steal_all, threading.Event()

    def held(handles: array[int], out: array[int]) -> None:
        go.wait(10.0)
        real(handles, out)

    monkeypatch.setattr(_cancels, "steal_all", held)
    yield go
    go.set()


def test_reads_and_a_second_cancel_while_another_thread_has_the_cancel_in_flight(
    loop: cadence.Loop, held_in_flight: threading.Event
) -> None:
    """The record is out of PENDING but not yet in C: what C says then is not the answer."""
    calls: list[str] = []
    timer = loop.schedule(1.0, _fire(calls, "t"))
    assert timer.cancel() is True
    flusher = threading.Thread(target=_cancels.flush)
    flusher.start()
    deadline = time.monotonic() + 10.0
    while _cancels.PENDING and time.monotonic() < deadline:  # until the flusher takes it
        time.sleep(0.001)
    assert not _cancels.PENDING
    answers = (timer.pending, timer.cancelled, timer.fire_date, timer.has_ref, timer.cancel())
    with pytest.raises(cadence.AlreadyCancelled):
        timer.reset(2.0)
    held_in_flight.set()
    flusher.join()
    assert answers == (False, True, None, False, False)
    loop.run(3.0)
    assert calls == []
    assert timer.cancel() is False


def test_a_timer_collected_while_its_own_threads_flush_holds_its_cancel(
    loop: cadence.Loop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A collection inside a flush (a finalizer run by an allocation there, or by a release that
    C calls): the timer's handle is given up before C has its cancel, and a one-shot given up
    still fires, so C must have the cancel first, or the freed key calls the next timer's
    callback."""
    calls: list[str] = []
    holder = [loop.schedule(1.0, _fire(calls, "cancelled"))]
    assert holder[0].cancel() is True
    real = _cancels.steal_all

    def collecting(handles: array[int], out: array[int]) -> None:
        holder.clear()  # the last reference: collected here, on the flushing thread
        real(handles, out)

    monkeypatch.setattr(_cancels, "steal_all", collecting)
    _cancels.flush()
    monkeypatch.undo()
    assert holder == []
    fresh = loop.schedule(1.0, _fire(calls, "fresh"))  # may take the freed key
    loop.run(2.0)
    assert calls == ["fresh"]
    assert fresh.cancel() is False


RUNNER_RECORDS_WHILE_ANOTHER_THREAD_FLUSHES = """
import gc, sys, threading, time, cadence
from cadence import _cancels

def in_c(ident):  # the thread is inside the flush's C call
    frame = sys._current_frames().get(ident)
    while frame is not None:
        if frame.f_code is _cancels.steal_all.__code__:
            return True
        frame = frame.f_back
    return False

for case in ("records", "collects"):
    loop = cadence.Loop.virtual()
    other = [loop.schedule(3600.0, lambda tick: None)]
    timers = []

    def tick(at):
        if len(timers) > 1:
            return
        assert timers[0].cancel() is True  # recorded: this thread runs the loop
        assert other[0].cancel() is True
        flusher = threading.Thread(target=_cancels.flush, daemon=True)
        timers.append(flusher)
        flusher.start()  # takes both: C's cancel of this timer waits for this callback
        deadline = time.monotonic() + 10
        while not in_c(flusher.ident) and time.monotonic() < deadline:
            time.sleep(0.001)
        assert in_c(flusher.ident)
        if case == "records":
            later.cancel()  # recorded, flushed once this callback returns
        else:
            other.clear()  # a recorded timer collected meanwhile
            gc.collect()

    later = loop.schedule(3600.0, lambda tick: None)
    timers.append(loop.schedule(1.0, tick, interval=1.0))
    runner = threading.Thread(target=loop.run, args=(5.0,), daemon=True)
    runner.start()
    runner.join(20)
    if runner.is_alive():
        print("deadlock:", case, flush=True)
        import os; os._exit(1)
    timers[1].join(20)  # the flush: C had this callback's own cancel to make
    assert later.cancel() is (case == "collects"), case
    assert loop.armed_timer_count == 0, case
    loop.close()
print("no deadlock")
"""


def test_a_runner_records_while_another_thread_flushes_its_records(run_child: Child) -> None:
    """Another thread's flush takes a running callback's own cancel, and C's cancel waits for
    that callback: the callback, recording more or collecting a recorded timer, must not wait
    for that flush."""
    done = run_child(RUNNER_RECORDS_WHILE_ANOTHER_THREAD_FLUSHES, 60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "no deadlock\n", "")


def test_a_cancel_in_c_from_another_thread_and_one_recorded_by_the_runner(
    loop: cadence.Loop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another thread's cancel goes to C, the GIL released; the runner, seeing the slot still
    holding the callback, records a cancel of the same timer meanwhile: one of them is True."""
    in_callback, stolen, recorded = threading.Event(), threading.Event(), threading.Event()
    answers: list[tuple[str, bool]] = []
    target = loop.schedule(10.0, lambda tick: None)

    def runner_cancels(tick: cadence.Tick) -> None:
        in_callback.set()
        assert stolen.wait(10.0)  # the other thread's C cancel has stopped the timer
        answers.append(("runner", target.cancel()))
        recorded.set()

    real = cancellable._steal

    def steal_then_wait(handle: int) -> int:
        code = int(real(handle))
        stolen.set()
        recorded.wait(10.0)  # the GIL is free: the runner records meanwhile
        return code

    monkeypatch.setattr(cancellable, "_steal", steal_then_wait)
    loop.schedule(1.0, runner_cancels)
    runner = threading.Thread(target=loop.run, args=(2.0,))
    runner.start()
    assert in_callback.wait(10.0)
    answers.append(("other", target.cancel()))
    runner.join(10.0)
    assert sorted(answer for _, answer in answers) == [False, True], answers
    assert target.cancel() is False


COLLECTION_INSIDE_A_FLUSH = """
import gc, cadence
from cadence import _cancels
for threshold in range(1, 40):
    loop = cadence.Loop.virtual()
    kept = loop.schedule(1.0, lambda tick: None)
    gc.collect()
    gc.disable()
    assert kept.cancel()
    cycle = [loop.schedule(1.0, lambda tick: None)]
    assert cycle[0].cancel()  # recorded, and garbage in a cycle: its collection flushes
    cycle.append(cycle)
    del cycle
    lists = [[] for _ in range(200)]  # no free list object: the next list is a new one
    gc.set_threshold(threshold)
    gc.enable()
    _cancels.flush()  # a collection at any of its allocations
    gc.set_threshold(700)
    assert not _cancels.PENDING and loop.armed_timer_count == 0, threshold
    loop.close()
print("ok")
"""


def test_a_collection_inside_a_flush_that_flushes_again(run_child: Child) -> None:
    """Python 3.11 collects inside allocations: one while a flush takes the records (a list
    copied once its length is read) must not find them taken from under it (a crash)."""
    done = run_child(COLLECTION_INSIDE_A_FLUSH, 60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")
