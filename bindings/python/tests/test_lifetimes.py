"""Closing: a closed object fails loudly, closing a loop closes what was made from it, and what
C holds of a registration (its callback) is let go when the registration ends."""

from __future__ import annotations

import gc
import re
import weakref
from typing import Any, Callable

import pytest

import cadence
from cadence import Tick, _cancels, _state, _table


class Callback:
    """A callback whose collection a weak reference sees: C let it go."""

    def __call__(self, value: object) -> None:
        pass


def callbacks(count: int) -> tuple[list[Callback], list[weakref.ref[Callback]]]:
    made = [Callback() for _ in range(count)]
    return made, [weakref.ref(callback) for callback in made]


def alive(refs: list[weakref.ref[Callback]]) -> int:
    gc.collect()
    return sum(ref() is not None for ref in refs)


def test_closing_the_loop_closes_everything_made_from_it() -> None:
    loop = cadence.Loop()
    made, refs = callbacks(3)
    publisher = loop.publish(0.01)
    auto = publisher.autoconnect()
    subscription = publisher.subscribe(made[0])
    auto_subscription = auto.subscribe(made[1])
    connection = publisher.connect()
    one_shot = loop.schedule(10.0, made[2])
    del made
    assert alive(refs) == 3  # held by C
    children: list[Any] = [publisher, auto, subscription, auto_subscription, connection, one_shot]
    assert not any(child.closed for child in children)

    loop.close()
    assert loop.closed
    assert all(child.closed for child in children)
    assert alive(refs) == 0  # the callbacks were let go
    loop.close()  # twice is fine
    for child in children:
        child.close()  # so is closing a child of a closed loop
    with pytest.raises(
        cadence.BadHandle, match=r"^Subscription\.cancel: cancellable must be a live"
    ):
        subscription.cancel()
    with pytest.raises(cadence.BadHandle, match=r"^Loop\.run: loop must be open, got a closed"):
        loop.run(0.0)
    assert repr(loop) == "<cadence.Loop closed>"


def test_a_closed_loop_is_freed_without_the_cycle_collector() -> None:
    """Closing frees the loop's state by reference counting alone (programs that disable or
    freeze the collector must not keep every closed loop)."""

    def states() -> int:
        return sum(type(o) is _state.LoopState for o in gc.get_objects())

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
        kept = publisher.subscribe(ticks.append)
        closed = publisher.subscribe(lambda tick: None)
        closed.close()
        closed.close()
        assert closed.closed
        with pytest.raises(cadence.BadHandle, match=r"^Subscription\.cancel: cancellable must be"):
            closed.cancel()
        with publisher.connect():
            loop.run(0.07)
        assert ticks
        assert not kept.closed
        assert kept.cancelled  # the connection's close ended the publisher for good
    assert loop.closed
    assert kept.closed


def test_an_unreferenced_loop_is_collected_with_its_callbacks() -> None:
    made, refs = callbacks(2)
    loop = cadence.Loop()
    subscription = loop.publish(0.01).autoconnect().subscribe(made[0])
    loop.schedule(1.0, made[1])
    del made
    loop_ref = weakref.ref(loop)
    del loop
    gc.collect()
    assert loop_ref() is not None  # the subscription keeps its loop
    with pytest.warns(ResourceWarning, match="still active"):
        del subscription
    gc.collect()
    assert loop_ref() is None
    assert alive(refs) == 0  # the subscription's at its give-up, the one-shot's at the close


def test_a_subscription_given_up_is_cancelled_and_lets_its_callback_go(
    loop: cadence.Loop,
) -> None:
    made, refs = callbacks(2)
    with pytest.warns(ResourceWarning, match="still active"):
        loop.publish(0.01).autoconnect().subscribe(made[0])
    subscription = loop.publish(0.01).subscribe(made[1])
    del made
    assert alive(refs) == 1  # the first was given up at once
    subscription.cancel()
    assert alive(refs) == 0  # a cancelled one lets its callback go
    assert loop.armed_timer_count == 0


def test_a_loop_referenced_by_the_callbacks_of_live_registrations_is_kept() -> None:
    """C holds the callbacks, so a loop they refer to stays alive while they are registered
    (as asyncio keeps a loop its scheduled handles refer to); once they end it is collected."""

    def start() -> weakref.ref[cadence.Loop]:
        loop = cadence.Loop.virtual()
        loop.schedule(10, lambda tick: loop.stop(), interval=1.0).detach()
        return weakref.ref(loop)

    loop_ref = start()
    gc.collect()
    survivor = loop_ref()
    assert survivor is not None
    survivor.close()  # ends every registration: C lets the callback go
    del survivor
    gc.collect()
    assert loop_ref() is None


def test_objects_made_from_a_loop_may_refer_to_each_other_and_to_it() -> None:
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

        first = timer.subscribe(once)
        second = timer.subscribe(refer)
        loop.run(2.5)
        assert len(ticks) == 3  # the first cancelled itself in its first call
        second.cancel()  # a callback that refers to its own handle keeps it: cancel it
        return weakref.ref(loop)

    loop_ref = build()
    gc.collect()
    assert loop_ref() is None


def test_a_running_loop_is_not_collected() -> None:
    survived: list[bool] = []

    def start() -> tuple[weakref.ref[cadence.Loop], Callable[[float], None]]:
        loop = cadence.Loop.virtual()
        loop_ref = weakref.ref(loop)

        def collect(tick: Tick) -> None:
            gc.collect()
            survived.append(loop_ref() is not None)

        loop.schedule(1, collect)
        loop.schedule(2, collect)
        return loop_ref, loop.run

    loop_ref, run = start()  # the bound method is the only reference left
    run(3)  # the call in progress holds the loop: collections inside it keep it
    assert survived == [True, True]
    del run
    gc.collect()
    assert loop_ref() is None


def test_a_copy_of_a_handle_is_the_handle_and_pickling_is_refused(
    virtual_loop: cadence.Loop,
) -> None:
    """A copy would own the same C handle and give it up when collected, stopping the original."""
    import copy
    import pickle

    fired: list[float] = []
    timer = virtual_loop.schedule(0.1, lambda tick: fired.append(tick.fire_date), interval=0.1)
    publisher = virtual_loop.publish(0.1)
    connection = publisher.connect()
    autoconnect = virtual_loop.publish(0.1).autoconnect()
    for handle in (timer, connection, publisher, autoconnect, virtual_loop):
        assert copy.copy(handle) is handle
        assert copy.deepcopy({"h": handle})["h"] is handle
        with pytest.raises(TypeError, match="cannot pickle a"):
            pickle.dumps(handle)
    gc.collect()
    virtual_loop.run(0.35)
    assert [round(date, 2) for date in fired] == [0.1, 0.2, 0.3]
    assert virtual_loop.armed_timer_count == 2
    assert publisher.interval == 0.1  # still theirs
    assert autoconnect.interval == 0.1
    timer.close()
    connection.close()


def test_a_callback_whose_del_closes_the_loop_lets_the_close_finish() -> None:
    """The loop's destroy releases the callback, whose __del__ closes the loop again: that
    nested close does nothing, and the outer one returns."""
    loop = cadence.Loop.virtual()
    nested: list[bool] = []

    class Closing:
        def __call__(self, tick: Tick) -> None:
            pass

        def __del__(self) -> None:
            loop.close()
            nested.append(loop.closed)

    timer = loop.schedule(10.0, Closing(), interval=1.0)
    loop.close()
    assert loop.closed
    assert nested == [False]  # during the outer destroy, before it marked the loop closed
    assert timer.closed


def test_a_cancelled_timer_lets_its_callback_go_whichever_way_c_hands_it_back(
    virtual_loop: cadence.Loop,
) -> None:
    """A cancel from outside gets the callback's key back from C (cadence_cancel_steal); a cancel
    from the timer's own callback, or a weak timer's, is told by the release function."""
    made, refs = callbacks(3)
    held = _table.held()
    outside = [virtual_loop.schedule(1.0, made[0]), virtual_loop.schedule(1.0, made[1], interval=1)]
    weak = virtual_loop.schedule(1.0, made[2].__call__, weak=True)
    own: list[cadence.ScheduledTimer] = []
    own.append(virtual_loop.schedule(0.5, lambda tick: own[0].cancel(), interval=0.5))
    assert _table.held() == held + 4
    del made
    assert [timer.cancel() for timer in outside] == [True, True]
    assert [timer.cancel() for timer in outside] == [False, False]
    assert alive(refs) == 0  # the weak timer's target was held only by ``made``: cancelled
    assert weak.cancelled
    assert _table.held() == held + 1  # the own-cancel one
    virtual_loop.run(2.0)
    assert own[0].cancelled
    assert _table.held() == held
    assert virtual_loop.armed_timer_count == 0


def test_a_handle_of_a_closed_loop_says_its_loop_was_closed() -> None:
    """A BadHandle from an object whose loop was closed says so, in place of C's list of the
    possible causes; an object closed on its own, beside a live loop, keeps C's words."""
    loop = cadence.Loop.virtual()
    publisher = loop.publish(1.0)
    auto = publisher.autoconnect()
    subscription, connection = publisher.subscribe(lambda tick: None), publisher.connect()
    countdown = loop.countdown(loop.now() + 5.0, 1.0)
    poller = loop.poller(1.0, lambda poll: None)
    timer = loop.schedule(1.0, lambda tick: None, interval=1.0)
    alone = loop.publish(1.0).subscribe(lambda tick: None)
    alone.close()
    with pytest.raises(cadence.BadHandle) as info:
        alone.cancel()
    assert str(info.value) == (
        "Subscription.cancel: cancellable must be a live cancellable handle, got 0x0 (released, "
        "destroyed with its loop, of another kind, or never made)"
    )
    loop.close()
    calls: list[tuple[str, str, Callable[[], object]]] = [
        ("Subscription.cancel", "cancellable", subscription.cancel),
        ("Connection.detach", "cancellable", connection.detach),
        ("Countdown.cancelled", "cancellable", lambda: countdown.cancelled),
        ("Poller.set_active", "poller", lambda: poller.set_active(False)),
        ("Poller.finish", "poller", lambda: poller.finish(1)),
        ("Poller.tolerance", "poller", lambda: poller.tolerance),
        ("TimerPublisher.connect", "publisher", publisher.connect),
        ("TimerPublisher.subscribe", "publisher", lambda: publisher.subscribe(lambda tick: None)),
        ("TimerPublisher.autoconnect", "publisher", publisher.autoconnect),
        ("AutoconnectTimerPublisher.connect", "publisher", auto.connect),
        (
            "AutoconnectTimerPublisher.subscribe",
            "publisher",
            lambda: auto.subscribe(print, weak=True),
        ),
        (
            "TimerPublisher.missed_ticks",
            "publisher",
            lambda: setattr(publisher, "missed_ticks", cadence.MissedTickPolicy.BURST),
        ),
    ]
    for where, argument, call in calls:
        with pytest.raises(cadence.BadHandle) as info:
            call()
        expected = (
            rf"{re.escape(where)}: {argument} must be a live {argument} handle, got 0x[0-9a-f]+ "
            r"\(its loop was closed, which closes every object made from it\)"
        )
        assert re.fullmatch(expected, str(info.value)), str(info.value)
    # A ScheduledTimer holds only its handle and does not know its loop: C's words.
    with pytest.raises(cadence.BadHandle, match=r"0x[0-9a-f]+ \(released, destroyed with its loop"):
        timer.cancel()


def test_every_kind_follows_the_one_cancel_protocol(
    virtual_loop: cadence.Loop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cancel of any kind gets the userdata's key back from C (cadence_cancel_steal) and ends it
    in Python: C's release function is not called for it; a countdown's end is still told (its
    awaiters wake). Only what ends without a cancel (the loop's close) comes through C's release."""
    released: list[int] = []
    end = _state.end

    def recorded(key: int) -> None:
        released.append(key)
        end(key)

    monkeypatch.setattr(_state, "end", recorded)
    held = _table.held()
    publisher = virtual_loop.publish(1.0)
    kinds: list[cadence.Cancellable] = [
        virtual_loop.schedule(1.0, lambda tick: None),
        publisher.subscribe(lambda tick: None),
        virtual_loop.countdown(10.0, 1.0, lambda remaining: None),
        virtual_loop.poller(1.0, lambda poll: None),
    ]
    countdown = kinds[2]
    assert isinstance(countdown, cadence.Countdown)
    assert _table.held() == held + 4
    assert [kind.cancel() for kind in kinds] == [True] * 4
    _cancels.flush()  # the scheduled timer's cancel was deferred (test_deferred_cancels.py)
    assert released == []  # every key came back through the cancel
    assert _table.held() == held
    assert countdown._progress.done.ended  # its end told all the same
    assert [kind.cancel() for kind in kinds] == [False] * 4
    virtual_loop.run(2.0)
    assert not countdown.finished
    kept = publisher.subscribe(lambda tick: None)
    assert _table.held() == held + 1
    virtual_loop.close()
    assert len(released) == 1  # the loop's close: C's release
    assert _table.held() == held
    kept.close()


def test_the_table_never_hands_out_key_0() -> None:
    """Key 0 is NULL as a userdata, which C never hands back: a registration holding it would
    take the release path on its cancel, unlike every other."""
    keys = [_table.hold(object()) for _ in range(3)]
    try:
        assert 0 not in keys
        assert 0 not in _table._free
        assert _table.slots[0] is None
    finally:
        for key in keys:
            _table.drop(key)
