"""Closing: a closed object fails loudly, closing a loop closes what was made from it."""

from __future__ import annotations

import ctypes
import gc
import weakref
from typing import Any, Callable

import pytest

import cadence
from cadence import Tick, _lib, _registry


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
    with pytest.raises(
        cadence.BadHandle,
        match=r"Subscription\.cancel: loop must be open, got a Subscription whose loop is closed",
    ):
        subscription.cancel()
    with pytest.raises(cadence.BadHandle, match=r"Loop\.run: loop must be open, got a closed Loop"):
        loop.run(0.0)
    assert repr(loop) == "<cadence.Loop closed>"


def test_a_closed_loop_is_freed_without_the_cycle_collector() -> None:
    """Closing frees the loop's bookkeeping by reference counting alone (programs that disable
    or freeze the collector must not keep every closed loop)."""

    def states() -> int:
        return sum(type(o) is _registry.LoopState for o in gc.get_objects())

    gc.collect()
    before = states()
    gc.disable()
    try:
        for _ in range(50):
            loop = cadence.Loop.virtual()
            loop.schedule(1.0, lambda tick: None)
            loop.close()
        del loop
        assert states() == before
    finally:
        gc.enable()


def test_closing_a_child_leaves_the_loop_and_siblings() -> None:
    with cadence.Loop() as loop:
        ticks: list[Tick] = []
        publisher = loop.publish(0.02)
        kept = publisher.sink(ticks.append)
        closed = publisher.sink(lambda tick: None)
        closed.close()
        closed.close()
        assert closed.closed
        with pytest.raises(
            cadence.BadHandle,
            match=r"Subscription\.cancel: Subscription must be open, got a closed one",
        ):
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


def loop_in_a_cycle() -> tuple[weakref.ref[cadence.Loop], _registry.LoopState]:
    """A loop whose callbacks refer to it through their closure (a cell that outlives this
    frame), with nothing else left referring to it."""
    loop = cadence.Loop()
    loop.schedule(10, lambda tick: loop.stop())
    publisher = loop.publish(0.01)
    publisher.sink(lambda tick: loop.stop())
    publisher.connect()
    loop.countdown(loop.now() + 10, 1.0, lambda remaining: loop.now())
    loop.poller(1.0, lambda poll: loop.stop())
    return weakref.ref(loop), loop._state


def test_a_loop_referenced_by_its_own_callbacks_is_collected() -> None:
    """The cycle loop -> callbacks -> loop is collected by the cyclic garbage collector, and
    collecting the loop closes it, as the Loop docstring promises."""
    before = _registry.live_count()
    gc.disable()  # so that the cycle is found by the collection below, not by chance earlier
    try:
        alive, state = loop_in_a_cycle()
        assert alive() is not None  # reference counting alone cannot free a cycle
        assert _registry.live_count() == before + 4
        gc.collect()
    finally:
        gc.enable()
    assert alive() is None
    assert state.closed  # the C loop was destroyed: none of its timers fires any more
    assert _registry.live_count() == before


def test_objects_made_from_a_loop_may_refer_to_each_other_and_to_it() -> None:
    before = _registry.live_count()

    def build() -> weakref.ref[cadence.Loop]:
        loop = cadence.Loop.virtual()
        ticks: list[Tick] = []
        timer = loop.publish(1.0).autoconnect()

        def once(tick: Tick) -> None:
            ticks.append(tick)
            first.cancel()

        def refer(tick: Tick) -> None:
            ticks.append(tick)
            assert second.loop is timer.loop is loop

        first = timer.sink(once)
        second = timer.sink(refer)
        loop.run(2.5)
        assert len(ticks) == 3  # the first cancelled itself in its first call
        return weakref.ref(loop)

    alive = build()
    gc.collect()
    assert alive() is None
    assert _registry.live_count() == before


def test_a_running_loop_is_not_collected() -> None:
    before = _registry.live_count()
    survived: list[bool] = []

    def start() -> tuple[weakref.ref[cadence.Loop], Callable[[float], None]]:
        loop = cadence.Loop.virtual()
        alive = weakref.ref(loop)

        def collect(tick: Tick) -> None:
            gc.collect()
            survived.append(alive() is not None)

        def collect_in_a_cycle(tick: Tick) -> None:
            collect(tick)
            assert loop.running  # refers to the loop: a cycle

        loop.schedule(1, collect_in_a_cycle)
        loop.schedule(2, collect)
        return alive, loop.run

    alive, run = start()  # the bound method is the only reference left
    run(3)  # the call in progress holds the loop: collections inside it keep it
    assert survived == [True, True]
    del run
    gc.collect()
    assert alive() is None
    assert _registry.live_count() == before


@pytest.mark.parametrize("call", ["schedule", "sink", "countdown", "poller"])
def test_a_close_on_another_thread_during_a_call_says_bad_handle(
    monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    """A close that lands after a call's closed check and before its C call (played here in one
    thread: the close happens as the callback is registered) is a BadHandle naming the closed
    loop, not a ctypes error about a missing callback, and leaves no entry behind."""
    loop = cadence.Loop()
    publisher = loop.publish(0.1)
    register = _registry.register

    def register_then_close(*args: Any, **kwargs: Any) -> int:
        key = register(*args, **kwargs)
        loop.close()
        return key

    monkeypatch.setattr(_registry, "register", register_then_close)
    calls: dict[str, Callable[[], object]] = {
        "schedule": lambda: loop.schedule(0.1, lambda tick: None),
        "sink": lambda: publisher.sink(lambda tick: None),
        "countdown": lambda: loop.countdown(5.0, 1.0, lambda remaining: None),
        "poller": lambda: loop.poller(0.1, lambda poll: None),
    }
    with pytest.raises(cadence.BadHandle, match=r"loop is closed|closed Loop"):
        calls[call]()
    table = loop._state.table()
    assert table is None or not table.entries


@pytest.mark.parametrize(
    ("call", "module", "name"),
    [
        ("schedule", "cadence.loop", "ScheduledTimer"),
        ("sink", "cadence.publisher", "Subscription"),
        ("countdown", "cadence.loop", "Countdown"),
        ("poller", "cadence.loop", "Poller"),
    ],
)
def test_an_interrupt_before_the_object_exists_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch, call: str, module: str, name: str
) -> None:
    """A KeyboardInterrupt from a signal handler can land after the C call has made its handle
    and before the Python object that owns it exists (played here by that object's class
    raising): the call raises it, the entry is dropped, the handle is cancelled and released,
    and the callback is not called afterwards."""
    loop = cadence.Loop.virtual()
    publisher = loop.publish(0.1)
    publisher.connect()
    handles: list[int] = []

    def interrupted(owner: object, state: object, handle: int, *args: object) -> None:
        handles.append(handle)
        raise KeyboardInterrupt

    monkeypatch.setattr(f"{module}.{name}", interrupted)
    called: list[object] = []
    calls: dict[str, Callable[[], object]] = {
        "schedule": lambda: loop.schedule(0.1, called.append),
        "sink": lambda: publisher.sink(called.append),
        "countdown": lambda: loop.countdown(0.5, 0.1, called.append),
        "poller": lambda: loop.poller(0.1, called.append),
    }
    with pytest.raises(KeyboardInterrupt):
        calls[call]()
    monkeypatch.undo()
    called.clear()  # a countdown's first value is delivered inside the C call
    loop.run(1.0)
    assert called == []
    table = loop._state.table()
    assert table is not None
    assert not table.entries
    [handle] = handles
    assert handle != 0
    out = ctypes.c_int()
    assert _lib.lib.cadence_is_cancelled(handle, out) == cadence.errors.EBADF  # released
    loop.close()
