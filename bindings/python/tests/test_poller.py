"""Pollers, the seed article's exercise: every interval, never overlapping, only while active."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

import cadence


@pytest.fixture
def virtual() -> Iterator[cadence.Loop]:
    with cadence.Loop.virtual() as fresh:
        yield fresh


class Log:
    """When each poll started (whole virtual seconds), and the most that ran at once."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.numbers: list[int] = []
        self.running = 0
        self.most = 0

    def start(self, poll: cadence.Poll) -> None:
        self.starts.append(round(poll.date))
        self.numbers.append(poll.number)
        self.running += 1
        self.most = max(self.most, self.running)

    def end(self) -> None:
        self.running -= 1

    def quick(self, poll: cadence.Poll) -> None:
        """A synchronous operation: done when it returns."""
        self.start(poll)
        self.end()


def test_three_polls_in_ninety_seconds(virtual: cadence.Loop) -> None:
    log = Log()
    poller = virtual.poller(30.0, log.quick)
    assert (poller.interval, poller.tolerance) == (30.0, 3.0)  # 10 % of the interval by default
    assert poller.active
    assert virtual.armed_timer_count == 1
    assert repr(poller) == "<cadence.Poller active every 30.0 s>"
    virtual.run(90.0)
    assert log.starts == [30, 60, 90]
    assert log.numbers == [1, 2, 3]
    assert poller.cancel() is True
    assert poller.cancel() is False
    assert not poller.active
    assert virtual.armed_timer_count == 0
    assert repr(poller) == "<cadence.Poller cancelled every 30.0 s>"
    virtual.run(90.0)
    assert log.starts == [30, 60, 90]


def test_no_poll_while_inactive_and_an_immediate_poll_when_active_again(
    virtual: cadence.Loop,
) -> None:
    log = Log()
    poller = virtual.poller(30.0, log.quick)
    virtual.run(40.0)
    poller.set_active(False)
    poller.set_active(False)  # the same state again does nothing
    assert not poller.active
    assert repr(poller) == "<cadence.Poller paused every 30.0 s>"
    assert virtual.armed_timer_count == 0  # the timer is removed while inactive
    virtual.run(60.0)
    assert log.starts == [30]
    poller.set_active(True)
    assert poller.active
    virtual.run(0.0)
    assert log.starts == [30, 100]  # at once, on the loop's next pass
    virtual.run(30.0)
    assert log.starts == [30, 100, 130]  # and the ticks restarted from then
    poller.cancel()


def test_a_slow_operation_never_overlaps_the_next_poll(virtual: cadence.Loop) -> None:
    log = Log()
    finishes: list[tuple[bool, bool]] = []

    def slow(poll: cadence.Poll) -> None:
        log.start(poll)

        def response(tick: cadence.Tick) -> None:  # the response takes 45 s
            log.end()
            finishes.append((poll.finish(), poll.finish()))

        virtual.schedule(45.0, response)

    poller = virtual.poller(30.0, slow, finish_on_return=False)
    virtual.run(200.0)
    assert log.starts == [30, 90, 150]  # the ticks at 60, 120, 180 found a poll running
    assert log.numbers == [1, 2, 3]
    assert log.most == 1
    assert finishes == [(True, False)] * 3  # finishing twice is harmless
    poller.close()


def test_finish_by_number_and_from_another_thread(virtual: cadence.Loop) -> None:
    log = Log()
    polls: list[cadence.Poll] = []

    def hand_off(poll: cadence.Poll) -> None:
        log.start(poll)
        polls.append(poll)

    poller = virtual.poller(30.0, hand_off, finish_on_return=False)
    virtual.run(100.0)
    assert log.starts == [30]  # poll 1 is still running
    assert poller.finish(0) is False  # never started
    assert poller.finish(99) is False
    assert poller.finish(1) is True
    assert poller.finish(1) is False
    virtual.run(20.0)
    assert log.starts == [30, 120]

    results: list[bool] = []
    worker = threading.Thread(target=lambda: results.append(polls[-1].finish()))
    worker.start()
    worker.join(timeout=10.0)
    assert results == [True]
    virtual.run(30.0)
    assert log.starts == [30, 120, 150]
    poller.cancel()
    assert polls[-1].finish() is True  # a running poll can still be finished after cancel
    poller.close()
    assert polls[0].finish() is False  # nothing left to finish once the poller is closed
    assert repr(polls[0]) == "<cadence.Poll number=1 date=30.0>"


def test_custom_tolerance(virtual: cadence.Loop) -> None:
    with virtual.poller(30.0, Log().quick, tolerance=1) as poller:
        assert poller.tolerance == 1.0
    with virtual.poller(30.0, Log().quick, tolerance=0.0) as poller:
        assert poller.tolerance == 0.0


def test_an_exception_in_the_operation_finishes_the_poll_and_comes_out_of_run(
    virtual: cadence.Loop,
) -> None:
    log = Log()

    def fail_first(poll: cadence.Poll) -> None:
        log.start(poll)
        if poll.number == 1:
            raise ConnectionError("status server down")

    _poller = virtual.poller(30.0, fail_first, finish_on_return=False)
    with pytest.raises(ConnectionError, match="status server down"):
        virtual.run(100.0)
    assert round(virtual.now()) == 30  # stopped after the pass that raised
    virtual.run(30.0)
    assert log.starts == [30, 60]  # poll 1 was finished for it: the poller goes on


def test_a_cancelled_poller_cannot_be_resumed(virtual: cadence.Loop) -> None:
    poller = virtual.poller(30.0, Log().quick)
    poller.cancel()
    with pytest.raises(
        cadence.AlreadyCancelled,
        match=r"^Poller\.set_active: poller must not be cancelled, got a cancelled poller$",
    ):
        poller.set_active(True)
    assert virtual.armed_timer_count == 0


def test_close_and_dropping_stop_it_and_detach_keeps_it(virtual: cadence.Loop) -> None:
    log = Log()
    with virtual.poller(30.0, log.quick) as poller:
        virtual.run(30.0)
    assert poller.closed
    assert virtual.armed_timer_count == 0

    with pytest.warns(ResourceWarning, match="still active"):
        virtual.poller(30.0, log.quick)  # given up at once: cancelled
    gc.collect()
    virtual.run(30.0)
    assert log.starts == [30]
    assert virtual.armed_timer_count == 0
    virtual.poller(30.0, log.quick).detach()  # kept going without its handle
    gc.collect()
    virtual.run(60.0)
    assert log.starts == [30, 90, 120]
    assert virtual.armed_timer_count == 1


def test_a_poller_on_a_real_loop(loop: cadence.Loop) -> None:
    dates: list[float] = []
    threads: set[int] = set()

    def check(poll: cadence.Poll) -> None:
        dates.append(poll.date)
        threads.add(threading.get_ident())

    start = loop.now()
    poller = loop.poller(0.05, check)
    assert poller.tolerance == pytest.approx(0.005)
    loop.run(0.33)
    poller.cancel()
    assert 3 <= len(dates) <= 7
    assert dates[0] >= start + 0.05  # the first poll one interval from now, never early
    assert threads == {threading.get_ident()}
