"""Closing: a closed object fails loudly, closing a loop closes what was made from it."""

from __future__ import annotations

import gc
import weakref

import pytest

import cadence
from cadence import Tick, _registry


def test_closing_the_loop_closes_everything_made_from_it() -> None:
    before = _registry.live_count()
    loop = cadence.Loop()
    publisher = loop.publish(0.01)
    auto = publisher.autoconnect()
    subscription = publisher.sink(lambda tick: None)
    auto_subscription = auto.sink(lambda tick: None)
    connection = publisher.connect()
    one_shot = loop.schedule(10.0, lambda tick: None)
    assert _registry.live_count() == before + 3
    children = [publisher, auto, subscription, auto_subscription, connection, one_shot]
    assert not any(child.closed for child in children)

    loop.close()
    assert loop.closed
    assert all(child.closed for child in children)
    assert _registry.live_count() == before  # the callbacks were let go
    loop.close()  # twice is fine
    for child in children:
        child.close()  # so is closing a child of a closed loop
    with pytest.raises(cadence.BadHandle, match="whose loop is closed"):
        subscription.cancel()
    with pytest.raises(cadence.BadHandle, match="on a closed Loop"):
        loop.run(0.0)
    assert repr(loop) == "<cadence.Loop closed>"


def test_closing_a_child_leaves_the_loop_and_siblings() -> None:
    with cadence.Loop() as loop:
        ticks: list[Tick] = []
        publisher = loop.publish(0.02)
        kept = publisher.sink(ticks.append)
        closed = publisher.sink(lambda tick: None)
        closed.close()
        closed.close()
        assert closed.closed
        with pytest.raises(cadence.BadHandle, match="on a closed Subscription"):
            closed.cancel()
        with publisher.connect():
            loop.run(0.07)
        assert ticks
        assert not kept.closed
        assert not kept.cancelled
    assert loop.closed
    assert kept.closed


def test_an_unreferenced_loop_is_collected_with_its_callbacks() -> None:
    before = _registry.live_count()
    loop = cadence.Loop()
    subscription = loop.publish(0.01).autoconnect().sink(lambda tick: None)
    loop.schedule(1.0, lambda tick: None)
    alive = weakref.ref(loop)
    del loop
    gc.collect()
    assert alive() is not None  # the subscription keeps its loop
    del subscription
    gc.collect()
    assert alive() is None
    assert _registry.live_count() == before


def test_a_subscription_outlives_its_python_object_until_cancelled(loop: cadence.Loop) -> None:
    before = _registry.live_count()
    loop.publish(0.01).autoconnect().sink(lambda tick: None)
    gc.collect()
    assert _registry.live_count() == before + 1  # still subscribed
    subscription = loop.publish(0.01).sink(lambda tick: None)
    subscription.cancel()
    assert _registry.live_count() == before + 1  # a cancelled one lets its callback go
    del subscription
    gc.collect()
    loop.close()
    assert _registry.live_count() == before
