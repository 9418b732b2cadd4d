"""Virtual loops: the same engine on a clock that moves only when told, asserted exactly. What
the Python face adds (its properties, errors and reprs); the timelines of the shared behaviour
are scenarios of the corpus (Tests/Scenarios, run by test_scenarios.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import cadence


def ms(seconds: float) -> int:
    """Virtual seconds as whole milliseconds (virtual dates are exact to well under 1 µs)."""
    return round(seconds * 1000)


@pytest.fixture
def virtual() -> Iterator[cadence.Loop]:
    with cadence.Loop.virtual() as fresh:
        yield fresh


@pytest.fixture(params=["real", "virtual"])
def any_loop(request: pytest.FixtureRequest) -> Iterator[cadence.Loop]:
    """One test body, both clocks (as swift-nio runs its suites on a real and an embedded loop)."""
    fresh = cadence.Loop() if request.param == "real" else cadence.Loop.virtual()
    with fresh:
        yield fresh


def test_a_virtual_loop_starts_at_zero_and_moves_only_when_told(virtual: cadence.Loop) -> None:
    assert virtual.is_virtual
    assert virtual.now() == 0.0
    assert repr(virtual) == "<cadence.Loop virtual idle, 0 wake-ups>"
    closed = cadence.Loop.virtual()
    closed.close()
    assert repr(closed) == "<cadence.Loop virtual closed>"
    time.sleep(0.01)
    assert virtual.now() == 0.0
    started = time.monotonic()
    virtual.run(86_400.0)  # a day, at once: nothing sleeps
    assert time.monotonic() - started < 1.0
    assert virtual.now() == 86_400.0
    virtual.jump_clock(0.5)
    virtual.jump_clock(0)  # a zero step is fine
    assert virtual.now() == 86_400.5
    with cadence.Loop() as real:
        assert not real.is_virtual
        assert real.now() > 1e9  # seconds since the epoch


def test_armed_timer_count_counts_timers_not_subscribers(any_loop: cadence.Loop) -> None:
    loop = any_loop
    assert loop.armed_timer_count == 0
    publisher = loop.publish(10.0)
    _sub1 = publisher.subscribe(lambda tick: None)
    _sub2 = publisher.subscribe(lambda tick: None)
    assert loop.armed_timer_count == 0  # not connected
    connection = publisher.connect()
    _conn3 = publisher.connect()
    assert loop.armed_timer_count == 1  # one timer, whatever the subscribers and connections
    timer = loop.schedule(10.0, lambda tick: None)
    assert loop.armed_timer_count == 2
    countdown = loop.countdown(loop.now() + 10, 1.0, lambda remaining: None)
    assert loop.armed_timer_count == 5  # its first value's one-shot, its tick and its deadline
    poller = loop.poller(10.0, lambda poll: None)
    assert loop.armed_timer_count == 6
    for cancellable in (connection, timer, countdown, poller):
        cancellable.cancel()
    assert loop.armed_timer_count == 0


def test_jump_clock_is_only_for_virtual_loops(loop: cadence.Loop) -> None:
    with pytest.raises(
        cadence.NotSupported,
        match=r"^Loop\.jump_clock: loop must be a virtual loop, got a real loop",
    ):
        loop.jump_clock(1.0)


def test_a_virtual_clock_refuses_to_reach_its_end(virtual: cadence.Loop) -> None:
    # 2**64 - 1 ns, about 584 years: a clock there could not move on, so steps to it are refused.
    virtual.jump_clock(1e10)
    for step in (virtual.jump_clock, virtual.run):
        with pytest.raises(
            cadence.InvalidArgument,
            match=r": seconds must keep a virtual clock before its end .*, got 10000000000\.0$",
        ):
            step(1e10)
    assert virtual.now() == 1e10
    fired: list[float] = []
    virtual.schedule(1.0, lambda tick: fired.append(tick.fire_date))
    virtual.run(1.0)
    assert fired == [1e10 + 1]


def test_a_virtual_loop_cannot_run_until_stopped(virtual: cadence.Loop) -> None:
    # No duration is a run until stop(), which would take a virtual clock to its end.
    message = (
        "Loop.run: seconds must keep a virtual clock before its end (2^64 - 1 ns, about 584 years "
        "after its start), got inf (a virtual loop cannot run until stop(): pass a duration, or "
        "run until idle)"
    )
    with pytest.raises(cadence.InvalidArgument) as raised:
        virtual.run()
    assert str(raised.value) == message
    assert virtual.now() == 0.0
    # A finite span past the clock's end is shown as given.
    with pytest.raises(cadence.InvalidArgument, match=r"got 20000000000\.0$"):
        virtual.run(2e10)
    assert virtual.now() == 0.0


MISSED = cadence.MissedTickPolicy


def test_missed_tick_policy_is_set_before_connect_and_copied(virtual: cadence.Loop) -> None:
    publisher = virtual.publish(0.1)
    assert publisher.missed_ticks is MISSED.SKIP
    publisher.missed_ticks = MISSED.BURST
    dates: list[int] = []
    _sub4 = publisher.subscribe(lambda tick: dates.append(ms(tick.fire_date)))
    _conn5 = publisher.connect()
    virtual.jump_clock(0.35)
    for _ in range(3):
        virtual.run(0.0)
    assert dates == [100, 200, 300]  # one missed tick per pass

    auto = publisher.autoconnect()
    assert auto.missed_ticks is MISSED.BURST  # the autoconnect copy bursts too
    auto_dates: list[int] = []
    with auto.subscribe(lambda tick: auto_dates.append(ms(tick.fire_date))):
        virtual.jump_clock(0.25)
        virtual.run(0.0)
        virtual.run(0.0)
    assert auto_dates == [450, 550]
    _conn5.close()
