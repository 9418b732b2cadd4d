"""Virtual loops: the same engine on a clock that moves only when told, asserted exactly."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import cadence
from cadence import Tick


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
    virtual.advance_clock(0.5)
    virtual.advance_clock(0)  # a zero step is fine
    assert virtual.now() == 86_400.5
    with cadence.Loop() as real:
        assert not real.is_virtual
        assert real.now() > 1e9  # seconds since the epoch


def test_seed_ticks_every_second_in_virtual_time(virtual: cadence.Loop) -> None:
    events: list[str] = []

    def record(tick: Tick) -> None:
        events.append(f"{len(events)}@{ms(tick.fire_date)}")

    ticks = virtual.publish(1.0).autoconnect()
    subscription = ticks.sink(record)
    virtual.run(3.5)
    assert events == ["0@1000", "1@2000", "2@3000"]
    assert virtual.armed_timer_count == 1  # the repeating timer
    assert subscription.cancel() is True
    assert virtual.armed_timer_count == 0  # cancelled with the subscription
    virtual.run(2.0)
    assert len(events) == 3


def test_a_blocked_thread_in_virtual_time_skips_ticks_once(virtual: cadence.Loop) -> None:
    ticks: list[Tick] = []
    ran_at: list[int] = []

    def record(tick: Tick) -> None:
        ticks.append(tick)
        ran_at.append(ms(virtual.now()))

    timer = virtual.publish(0.1)
    timer.sink(record)
    with timer.connect():
        virtual.run(0.25)
        assert [ms(tick.fire_date) for tick in ticks] == [100, 200]
        virtual.advance_clock(0.55)  # the thread is blocked for 550 ms
        assert len(ticks) == 2  # nothing fires while blocked
        assert ms(virtual.now()) == 800
        virtual.run(0.35)
    # One late fire for 0.3 to 0.8, at the latest grid point and at once, then the grid again.
    assert [ms(tick.fire_date) for tick in ticks] == [100, 200, 800, 900, 1000, 1100]
    assert [tick.skipped for tick in ticks] == [0, 0, 5, 0, 0, 0]
    assert ran_at == [100, 200, 800, 900, 1000, 1100]
    assert ms(virtual.now()) == 1150


def test_virtual_timers_fire_exactly_at_their_fire_dates(virtual: cadence.Loop) -> None:
    fired: list[tuple[str, int, int]] = []

    def at(name: str) -> cadence.ScheduledTimer:
        delay = {"a": 0.3, "b": 0.1, "c": 0.2, "d": 0.2}[name]
        return virtual.schedule(
            delay, lambda tick: fired.append((name, ms(tick.fire_date), ms(virtual.now())))
        )

    for name in "abcd":
        at(name)
    assert virtual.armed_timer_count == 4
    virtual.run(1.0)
    assert fired == [("b", 100, 100), ("c", 200, 200), ("d", 200, 200), ("a", 300, 300)]
    assert virtual.armed_timer_count == 0


def test_tolerance_coalesces_wakeups_in_virtual_time(virtual: cadence.Loop) -> None:
    fired: list[tuple[str, int]] = []
    virtual.schedule(1.0, lambda tick: fired.append(("a", ms(virtual.now()))), tolerance=0.5)
    virtual.schedule(1.3, lambda tick: fired.append(("b", ms(virtual.now()))))
    virtual.run(2.0)
    # a may come up to 1.5 and b is due at 1.3: one wake-up at 1.3 serves both.
    assert fired == [("a", 1300), ("b", 1300)]
    assert virtual.wakeups == 1


def test_armed_timer_count_counts_timers_not_subscribers(any_loop: cadence.Loop) -> None:
    loop = any_loop
    assert loop.armed_timer_count == 0
    publisher = loop.publish(10.0)
    publisher.sink(lambda tick: None)
    publisher.sink(lambda tick: None)
    assert loop.armed_timer_count == 0  # not connected
    connection = publisher.connect()
    publisher.connect()
    assert loop.armed_timer_count == 1  # one timer, whatever the subscribers and connections
    timer = loop.schedule(10.0, lambda tick: None)
    assert loop.armed_timer_count == 2
    countdown = loop.countdown(loop.now() + 10, 1.0, lambda remaining: None)
    assert loop.armed_timer_count == 4  # its tick and its deadline
    poller = loop.poller(10.0, lambda poll: None)
    assert loop.armed_timer_count == 5
    for cancellable in (connection, timer, countdown, poller):
        cancellable.cancel()
    assert loop.armed_timer_count == 0


def test_scheduled_timers_keep_their_order_on_both_clocks(any_loop: cadence.Loop) -> None:
    loop = any_loop
    order: list[str] = []
    loop.schedule(0.03, lambda tick: order.append("a"))
    loop.schedule(0.01, lambda tick: order.append("b"))
    cancelled = loop.schedule(0.02, lambda tick: order.append("never"))
    loop.schedule(0.03, lambda tick: order.append("c"))
    assert cancelled.cancel() is True
    loop.run(0.08)
    assert order == ["b", "a", "c"]


def test_advance_clock_is_only_for_virtual_loops(loop: cadence.Loop) -> None:
    with pytest.raises(
        cadence.NotSupported,
        match=r"^Loop\.advance_clock: loop must be a virtual loop, got a real loop",
    ):
        loop.advance_clock(1.0)


def test_a_virtual_clock_refuses_to_reach_its_end(virtual: cadence.Loop) -> None:
    # 2**64 - 1 ns, about 584 years: a clock there could not move on, so steps to it are refused.
    virtual.advance_clock(1e10)
    for step in (virtual.advance_clock, virtual.run):
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


MISSED = cadence.MissedTickPolicy
# A 1 s timer whose first callback blocks the thread for 3.5 s: "fire date@ran at/skipped" in ms.
MISSED_TICKS_EXPECTED = {
    MISSED.SKIP: [
        "1000@1000/0",
        "4000@4500/2",
        *[f"{s}000@{s}000/0" for s in range(5, 11)],
    ],
    MISSED.BURST: [
        "1000@1000/0",
        "2000@4500/0",
        "3000@4500/0",
        "4000@4500/0",
        *[f"{s}000@{s}000/0" for s in range(5, 11)],
    ],
    MISSED.DELAY: [
        "1000@1000/0",
        "2000@4500/0",
        *[f"{s}500@{s}500/0" for s in range(5, 10)],
    ],
}


@pytest.mark.parametrize("policy", list(MISSED))
def test_missed_tick_policies(virtual: cadence.Loop, policy: cadence.MissedTickPolicy) -> None:
    log: list[str] = []

    def on_tick(tick: Tick) -> None:
        log.append(f"{ms(tick.fire_date)}@{ms(virtual.now())}/{tick.skipped}")
        if len(log) == 1:
            virtual.advance_clock(3.5)  # the callback blocks the thread for 3.5 s

    publisher = virtual.publish(1.0, missed_ticks=policy)
    assert publisher.missed_ticks is policy
    publisher.sink(on_tick)
    with publisher.connect():
        virtual.run(10.0)
    assert log == MISSED_TICKS_EXPECTED[policy]


def test_missed_tick_policy_is_set_before_connect_and_copied(virtual: cadence.Loop) -> None:
    publisher = virtual.publish(0.1)
    assert publisher.missed_ticks is MISSED.SKIP
    publisher.missed_ticks = MISSED.BURST
    dates: list[int] = []
    publisher.sink(lambda tick: dates.append(ms(tick.fire_date)))
    publisher.connect()
    virtual.advance_clock(0.35)
    for _ in range(3):
        virtual.run(0.0)
    assert dates == [100, 200, 300]  # one missed tick per pass

    auto = publisher.autoconnect()
    assert auto.missed_ticks is MISSED.BURST  # the autoconnect copy bursts too
    auto_dates: list[int] = []
    with auto.sink(lambda tick: auto_dates.append(ms(tick.fire_date))):
        virtual.advance_clock(0.25)
        virtual.run(0.0)
        virtual.run(0.0)
    assert auto_dates == [450, 550]
