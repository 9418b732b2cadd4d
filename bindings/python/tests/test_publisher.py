"""Connectable and autoconnect publishers, subscriptions and connections."""

from __future__ import annotations

import gc

import pytest

import cadence
from cadence import Tick


def test_connect_twice_is_one_timer_and_cancel_is_final(virtual_loop: cadence.Loop) -> None:
    """What connect and cancel answer in Python; the timelines are connect.jsonl's."""
    publisher = virtual_loop.publish(0.05)
    ticks: list[Tick] = []
    first_handle = publisher.subscribe(ticks.append)
    connection = publisher.connect()
    again = publisher.connect()  # the same timer, not a second one
    assert virtual_loop.armed_timer_count == 1
    virtual_loop.run(0.26)
    assert ticks

    assert first_handle.cancel() is True
    assert first_handle.cancel() is False
    assert first_handle.cancelled

    # Both connections control the one timer: the first cancel stops it, the second finds it done.
    assert again.cancel() is True
    assert connection.cancelled
    assert connection.cancel() is False
    assert virtual_loop.armed_timer_count == 0

    # Connecting a cancelled publisher gives an already-cancelled connection and starts nothing.
    late = publisher.connect()
    assert late.cancelled
    assert late.cancel() is False
    assert virtual_loop.armed_timer_count == 0


def test_callbacks_may_cancel_themselves_and_others(virtual_loop: cadence.Loop) -> None:
    """What cancel answers inside a callback; the timelines are callbacks.jsonl's."""
    publisher = virtual_loop.publish(0.02)
    own: list[Tick] = []
    results: list[bool] = []

    def cancel_self_on_third(tick: Tick) -> None:
        own.append(tick)
        if len(own) == 3:
            results.append(handle.cancel())  # sticks: no re-arm after the callback returns
            results.append(handle.cancel())
            results.append(other_handle.cancel())

    handle = publisher.subscribe(cancel_self_on_third)
    other_handle = publisher.subscribe(lambda tick: None)
    with publisher.connect():
        virtual_loop.run(0.2)
    assert len(own) == 3
    assert results == [True, False, True]
    assert handle.cancelled
    assert other_handle.cancelled


def test_dropped_handles_stop_the_timer_unless_detached(loop: cadence.Loop) -> None:
    ticks: list[Tick] = []
    publisher = loop.publish(0.03)
    with pytest.warns(ResourceWarning, match="still active"):
        publisher.subscribe(ticks.append)  # the Subscription is given up at once: cancelled
    connection = publisher.connect()
    publisher.close()  # giving up the publisher leaves the running timer alone
    gc.collect()
    loop.run(0.1)
    assert ticks == []
    kept: list[Tick] = []
    detached = loop.publish(0.03)
    detached.subscribe(kept.append).detach()  # kept going without its handle
    detached.connect().detach()
    with pytest.warns(ResourceWarning, match="still active"):  # the connection
        del detached, connection
    gc.collect()
    assert loop.armed_timer_count == 1  # the first timer stopped with its last connection
    loop.run(0.2)
    assert len(kept) >= 3


def test_with_blocks_cancel(loop: cadence.Loop) -> None:
    ticks: list[Tick] = []
    publisher = loop.publish(0.03)
    with publisher.connect() as connection:
        with publisher.subscribe(ticks.append) as subscription:
            loop.run(0.1)
            assert not subscription.closed
        assert subscription.closed
        heard = len(ticks)
        assert heard >= 2
        loop.run(0.07)
        assert len(ticks) == heard  # the subscription was cancelled on exit
    assert connection.closed
    auto_ticks: list[Tick] = []
    with publisher.autoconnect() as auto:
        _sub2 = auto.subscribe(auto_ticks.append)
    assert auto.closed
    loop.run(0.07)
    assert len(auto_ticks) >= 1  # closing an autoconnect publisher leaves its subscribers
    _sub2.close()


def test_publisher_properties_and_repr(loop: cadence.Loop) -> None:
    publisher = loop.publish(0.25, tolerance=0.05, mode="common")
    assert (publisher.interval, publisher.tolerance, publisher.mode) == (0.25, 0.05, "common")
    assert publisher.loop is loop
    auto = publisher.autoconnect()
    assert (auto.interval, auto.tolerance, auto.mode) == (0.25, 0.05, "common")
    with pytest.raises(
        cadence.NotSupported, match=r"^AutoconnectTimerPublisher\.connect: publisher must"
    ):
        auto.connect()  # as cadence_publisher_connect on an autoconnect publisher
    assert repr(publisher) == (
        "<cadence.TimerPublisher(interval=0.25, tolerance=0.05, mode='common')>"
    )
    publisher.missed_ticks = cadence.MissedTickPolicy.BURST  # shown when not the default
    assert repr(publisher) == (
        "<cadence.TimerPublisher(interval=0.25, tolerance=0.05, mode='common', "
        "missed_ticks=MissedTickPolicy.BURST)>"
    )
    publisher.missed_ticks = cadence.MissedTickPolicy.SKIP
    subscription = auto.subscribe(lambda tick: None)
    connection = publisher.connect()
    assert "Subscription active" in repr(subscription)
    assert "Connection active" in repr(connection)
    subscription.cancel()
    connection.cancel()
    assert "Subscription cancelled" in repr(subscription)
    assert "Connection cancelled" in repr(connection)
    subscription.close()
    publisher.close()
    assert "Subscription closed" in repr(subscription)
    assert repr(publisher).endswith(" closed>")
    loop.close()
    assert "closed (loop closed)" in repr(auto)
    assert "closed (loop closed)" in repr(connection)


@pytest.mark.parametrize("interval", [1e-9, 1e300])
def test_extreme_intervals_are_accepted(loop: cadence.Loop, interval: float) -> None:
    ticks: list[Tick] = []
    publisher = loop.publish(interval)
    _sub3 = publisher.subscribe(ticks.append)
    with publisher.connect():
        loop.run(0.01)
    if interval > 1:
        assert ticks == []  # saturates far in the future instead of wrapping into "now"
    else:
        assert len(ticks) >= 1  # a tiny interval fires, once per pass (skipping), no burst
        assert all(tick.skipped >= 0 for tick in ticks)


def test_a_publisher_closed_before_connect_cancels_its_subscriptions(
    virtual_loop: cadence.Loop,
) -> None:
    """Closed before it was ever connected, a publisher can never tick: its subscriptions read as
    cancelled. Closed once connected, it goes on until its connection is cancelled (or given up)."""
    never: list[cadence.Tick] = []
    kept: list[cadence.Tick] = []
    unconnected = virtual_loop.publish(0.1)
    connected = virtual_loop.publish(0.1)
    subscription = unconnected.subscribe(never.append)
    going = connected.subscribe(kept.append)
    connection = connected.connect()
    unconnected.close()
    connected.close()
    assert subscription.cancelled
    assert not going.cancelled
    virtual_loop.run(0.35)
    assert never == []
    assert [tick.fire_date for tick in kept] == pytest.approx([0.1, 0.2, 0.3])
    connection.cancel()
    assert going.cancelled  # nothing can make it tick again, though the connection is held
    connection.close()
    assert going.cancelled
