"""The lifetime contract, one test per cell of the table in docs/python.md: for each kind, what
cancel, giving up the handle (the object collected) and detach-then-give-up do. The case names
and timelines are those of the Swift and C tests of the same cells, on a virtual loop."""

from __future__ import annotations

import gc
import weakref
from contextlib import nullcontext
from typing import Any

import pytest

import cadence
from cadence import Tick


def dates(fires: list[Tick]) -> list[float]:
    return [tick.fire_date for tick in fires]


def drop(namespace: dict[str, Any], *names: str, active: bool = False) -> None:
    """Gives up handles: deletes them and collects; ``active``: one was still going, which the
    give-up stopped, and a ResourceWarning says so (an unexpected one fails the test)."""
    with pytest.warns(ResourceWarning, match="still active") if active else nullcontext():
        for name in names:
            del namespace[name]
        gc.collect()


def test_one_shot_cancel(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    timer = virtual_loop.schedule(1.0, fires.append)
    assert timer.cancel() is True
    assert timer.cancel() is False
    virtual_loop.run(2.0)
    assert fires == []


def test_one_shot_give_up(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    handles = {"timer": virtual_loop.schedule(1.0, fires.append)}
    drop(handles, "timer")
    virtual_loop.run(2.0)
    assert dates(fires) == [1.0]  # fire-and-forget


def test_one_shot_detach(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    handles = {"timer": virtual_loop.schedule(1.0, fires.append)}
    handles["timer"].detach()
    handles["timer"].detach()  # twice is a no-op
    drop(handles, "timer")
    virtual_loop.run(2.0)
    assert dates(fires) == [1.0]


def repeating(loop: cadence.Loop, fires: list[Tick]) -> dict[str, Any]:
    return {"timer": loop.schedule(1.0, fires.append, interval=1.0)}


def test_repeating_cancel(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    handles = repeating(virtual_loop, fires)
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0]
    assert handles["timer"].cancel() is True
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0]
    assert virtual_loop.armed_timer_count == 0


def test_repeating_give_up(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    handles = repeating(virtual_loop, fires)
    virtual_loop.run(2.5)
    drop(handles, "timer", active=True)
    assert virtual_loop.armed_timer_count == 0  # at once
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0]


def test_repeating_detach(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    handles = repeating(virtual_loop, fires)
    handles["timer"].detach()
    virtual_loop.run(2.5)
    drop(handles, "timer")
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert virtual_loop.armed_timer_count == 1


def test_publisher_give_up(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    publisher = virtual_loop.publish(1.0)
    subscription = publisher.subscribe(fires.append)
    handles = {"connection": publisher.connect(), "publisher": publisher}
    del publisher
    drop(handles, "publisher")
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0]  # the connection keeps it ticking
    assert not subscription.cancelled
    drop(handles, "connection", active=True)
    assert virtual_loop.armed_timer_count == 0
    assert subscription.cancelled  # nothing can make it tick again
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0]


def connected(loop: cadence.Loop, fires: list[Tick]) -> tuple[cadence.TimerPublisher, Any]:
    publisher = loop.publish(1.0)
    return publisher, publisher.subscribe(fires.append)


def test_connection_cancel(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    publisher, subscription = connected(virtual_loop, fires)
    connection = publisher.connect()
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0]
    assert connection.cancel() is True
    assert connection.cancel() is False
    # Nothing can make it tick again, though the publisher and the connection are held.
    assert subscription.cancelled is True
    assert subscription.cancel() is False
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0]
    assert virtual_loop.armed_timer_count == 0


def test_connection_give_up(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    publisher, _subscription = connected(virtual_loop, fires)
    handles = {"first": publisher.connect(), "second": publisher.connect()}
    virtual_loop.run(2.5)
    drop(handles, "first")  # another handle to the same connection is held
    virtual_loop.run(1.0)
    assert dates(fires) == [1.0, 2.0, 3.0]
    drop(handles, "second", active=True)  # the last one: the timer stops
    virtual_loop.run(1.5)
    assert dates(fires) == [1.0, 2.0, 3.0]
    assert virtual_loop.armed_timer_count == 0


def test_connection_detach(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    publisher, _subscription = connected(virtual_loop, fires)
    handles = {"connection": publisher.connect()}
    handles["connection"].detach()
    virtual_loop.run(2.5)
    drop(handles, "connection")
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert virtual_loop.armed_timer_count == 1
    _subscription.close()


def subscribed(loop: cadence.Loop, fires: list[Tick]) -> dict[str, Any]:
    auto = loop.publish(1.0).autoconnect()
    return {"publisher": auto, "subscription": auto.subscribe(fires.append)}


@pytest.mark.parametrize("case", ["cancel", "give_up", "detach"])
def test_subscription(virtual_loop: cadence.Loop, case: str) -> None:
    """subscription_cancel, subscription_give_up, subscription_detach."""
    fires: list[Tick] = []
    handles = subscribed(virtual_loop, fires)
    if case == "detach":
        handles["subscription"].detach()
    virtual_loop.run(2.5)
    assert dates(fires) == [1.0, 2.0]
    if case == "cancel":
        assert handles["subscription"].cancel() is True
    else:
        drop(handles, "subscription", active=case == "give_up")
    virtual_loop.run(2.5)
    if case == "detach":
        assert dates(fires) == [1.0, 2.0, 3.0, 4.0, 5.0]
        assert virtual_loop.armed_timer_count == 1
    else:  # the last subscriber of an autoconnect publisher disconnects it
        assert dates(fires) == [1.0, 2.0]
        assert virtual_loop.armed_timer_count == 0


@pytest.mark.parametrize("case", ["cancel", "give_up", "detach"])
def test_countdown(virtual_loop: cadence.Loop, case: str) -> None:
    """countdown_cancel, countdown_give_up, countdown_detach."""
    values: list[int] = []
    finished: list[float] = []
    countdown = virtual_loop.countdown(
        5.0, 1.0, values.append, on_finish=lambda: finished.append(virtual_loop.now())
    )
    handles = {"countdown": countdown}
    if case == "detach":
        countdown.detach()
    virtual_loop.run(2.5)
    assert values == [5, 4, 3]
    if case == "cancel":
        assert countdown.cancel() is True
    del countdown
    drop(handles, "countdown", active=case == "give_up")
    virtual_loop.run(7.5)
    if case == "detach":
        assert values == [5, 4, 3, 2, 1, 0]
        assert finished == [5.0]
    else:
        assert values == [5, 4, 3]
        assert finished == []
    assert virtual_loop.armed_timer_count == 0


@pytest.mark.parametrize("case", ["cancel", "give_up", "detach"])
def test_poller(virtual_loop: cadence.Loop, case: str) -> None:
    """poller_cancel, poller_give_up, poller_detach."""
    polls: list[float] = []
    handles = {
        "poller": virtual_loop.poller(1.0, lambda poll: polls.append(poll.date), tolerance=0)
    }
    if case == "detach":
        handles["poller"].detach()
    virtual_loop.run(2.5)
    assert polls == [1.0, 2.0]
    if case == "cancel":
        assert handles["poller"].cancel() is True
    else:
        drop(handles, "poller", active=case == "give_up")
    virtual_loop.run(2.5)
    assert polls == ([1.0, 2.0, 3.0, 4.0, 5.0] if case == "detach" else [1.0, 2.0])


def test_loop_close() -> None:
    """Closing the loop cancels everything and lets go of every callback C held; every handle
    made from it then raises BadHandle, and closing twice does nothing."""
    fires: list[Tick] = []

    class Callback:
        def __call__(self, tick: Tick) -> None:
            fires.append(tick)

    loop = cadence.Loop.virtual()
    made = [Callback() for _ in range(3)]
    refs = [weakref.ref(callback) for callback in made]
    timer = loop.schedule(1.0, made[0], interval=1.0)
    loop.schedule(1.0, made[1])  # given up at once: fire-and-forget
    subscription = loop.publish(1.0).autoconnect().subscribe(made[2])
    countdown = loop.countdown(5.0, 1.0, lambda value: None)
    poller = loop.poller(1.0, lambda poll: None)
    del made
    gc.collect()
    assert all(ref() is not None for ref in refs)  # held by C
    assert loop.armed_timer_count == 7  # a countdown has three before its first pass
    loop.close()
    loop.close()
    gc.collect()
    assert all(ref() is None for ref in refs)
    for handle in (timer, subscription, countdown, poller):
        with pytest.raises(cadence.BadHandle):
            handle.cancel()
        assert handle.closed
    with pytest.raises(cadence.BadHandle):
        loop.run(1.0)
    assert fires == []


def test_loop_close_twice() -> None:
    """Closing a loop twice: the second close does nothing, as a file's; C's second
    cadence_loop_close names a stale handle (EBADF). A loop made since is untouched."""
    fires: list[float] = []
    loop = cadence.Loop.virtual()
    loop.schedule(1.0, lambda tick: fires.append(tick.fire_date), interval=1.0).detach()
    loop.close()
    loop.close()
    assert loop.closed
    with pytest.raises(cadence.BadHandle):
        loop.run(1.0)
    with cadence.Loop.virtual() as later:
        later_fires: list[float] = []
        later.schedule(1.0, lambda tick: later_fires.append(tick.fire_date), interval=1.0).detach()
        loop.close()
        later.run(2.5)
        assert later_fires == [1.0, 2.0]
    assert fires == []


def test_autoconnect_1000_given_up(virtual_loop: cadence.Loop) -> None:
    fires: list[Tick] = []
    handles = []
    for _ in range(1000):
        auto = virtual_loop.publish(0.1).autoconnect()
        handles.append((auto, auto.subscribe(fires.append)))
    assert virtual_loop.armed_timer_count == 1000
    del auto
    with pytest.warns(ResourceWarning, match="Subscription"):
        handles.clear()
    gc.collect()
    virtual_loop.run(0.5)
    assert len(fires) == 0
    assert virtual_loop.armed_timer_count == 0


def test_weak_target_collected(virtual_loop: cadence.Loop) -> None:
    fires: list[float] = []

    class Target:
        def on_tick(self, tick: Tick) -> None:
            fires.append(tick.fire_date)

    target = Target()
    timer = virtual_loop.schedule(1.0, target.on_tick, interval=1.0, weak=True)
    virtual_loop.run(2.5)
    assert fires == [1.0, 2.0]
    del target
    gc.collect()
    assert virtual_loop.armed_timer_count == 0  # at once, by the weak reference's callback
    assert timer.cancelled
    virtual_loop.run(2.5)
    assert fires == [1.0, 2.0]


def test_weak_subscribe_and_weak_one_shot(virtual_loop: cadence.Loop) -> None:
    fires: list[float] = []

    class Target:
        def on_tick(self, tick: Tick) -> None:
            fires.append(tick.fire_date)

    target = Target()
    auto = virtual_loop.publish(1.0).autoconnect()
    subscription = auto.subscribe(target.on_tick, weak=True)
    one_shot = virtual_loop.schedule(3.0, target.on_tick, weak=True)
    virtual_loop.run(1.5)
    del target
    gc.collect()
    assert subscription.cancelled
    assert one_shot.cancelled
    assert virtual_loop.armed_timer_count == 0
    virtual_loop.run(3.0)
    assert fires == [1.0]

    class Strong:
        __slots__ = ()

        def __call__(self, tick: Tick) -> None:
            pass

    with pytest.raises(TypeError, match="weakly referenceable"):
        virtual_loop.schedule(1.0, Strong(), weak=True)


def test_a_callback_that_holds_its_own_handle_runs_until_cancelled(
    virtual_loop: cadence.Loop,
) -> None:
    """C holds the callback, so giving up cannot happen while it refers to its own handle."""
    fires: list[float] = []

    def start() -> None:
        box: list[cadence.ScheduledTimer] = []

        def tick(tick: Tick) -> None:
            fires.append(tick.fire_date)
            if len(fires) == 3:
                box[0].cancel()

        box.append(virtual_loop.schedule(1.0, tick, interval=1.0))

    start()  # nothing but the callback refers to the timer
    gc.collect()
    virtual_loop.run(5.0)
    assert fires == [1.0, 2.0, 3.0]
    assert virtual_loop.armed_timer_count == 0


def test_a_weak_plain_function_is_held_through_weakref_ref(virtual_loop: cadence.Loop) -> None:
    fires: list[float] = []

    def make() -> cadence.ScheduledTimer:
        def on_tick(tick: Tick) -> None:
            fires.append(tick.fire_date)

        return virtual_loop.schedule(1.0, on_tick, interval=1.0, weak=True)

    timer = make()  # nothing holds the function strongly: it is gone at once
    gc.collect()
    assert timer.cancelled
    assert virtual_loop.armed_timer_count == 0
    virtual_loop.run(2.0)
    assert fires == []


class Captured:
    """Something a callback captures, watched weakly to see the callback let go of."""


LETS_GO: dict[str, Any] = {
    "one_shot": lambda loop, cb: loop.schedule(5.0, cb),
    "repeating": lambda loop, cb: loop.schedule(1.0, cb, interval=1.0),
    "subscription": lambda loop, cb: loop.publish(1.0).autoconnect().subscribe(cb),
    "countdown": lambda loop, cb: loop.countdown(10.0, 1.0, cb, on_finish=lambda: cb(None)),
    "poller": lambda loop, cb: loop.poller(1.0, cb),
}


@pytest.mark.parametrize("kind", LETS_GO)
def test_cancel_lets_go(virtual_loop: cadence.Loop, kind: str) -> None:
    """cancel_lets_go (as in Swift and C): a cancel lets go of the callback, and of what it
    captured, at once, while the handle is still held."""
    captured = Captured()
    watched = weakref.ref(captured)
    handle = LETS_GO[kind](virtual_loop, lambda event, held=captured: None)
    del captured
    virtual_loop.run(2.5)
    assert watched() is not None
    assert handle.cancel() is True
    assert watched() is None  # no collection needed: nothing holds it
    assert not handle.closed
