"""Loop.run_until_idle and unreferenced timers (libuv's UV_RUN_DEFAULT with uv_unref): the cases
of Tests/CadenceTests/RunUntilIdleTests.swift and Tests/C/run_until_idle.c, in virtual time, then
one on the real clock."""

from __future__ import annotations

import math
import threading
import time

import pytest

import cadence
from cadence import Tick


def ms(seconds: float) -> int:
    return round(seconds * 1000)


def test_returns_right_after_the_last_one_shot_fires(virtual_loop: cadence.Loop) -> None:
    fired: list[int] = []
    once = virtual_loop.schedule(0.25, lambda tick: fired.append(ms(tick.fire_date)))
    assert once.has_ref
    virtual_loop.run_until_idle()
    assert fired == [250]
    assert ms(virtual_loop.now()) == 250
    assert not once.has_ref  # it has ended
    virtual_loop.run_until_idle()  # nothing armed: returns at once
    assert ms(virtual_loop.now()) == 250


def test_an_unreferenced_repeating_timer_does_not_keep_the_run_going(
    virtual_loop: cadence.Loop,
) -> None:
    ticks: list[int] = []
    every = virtual_loop.schedule(0.1, lambda tick: ticks.append(ms(tick.fire_date)), interval=0.1)
    every.unref()
    every.unref()  # twice is harmless
    assert not every.has_ref
    assert every.pending
    virtual_loop.run_until_idle()
    assert ticks == []
    assert ms(virtual_loop.now()) == 0
    virtual_loop.schedule(0.35, lambda tick: None)
    virtual_loop.run_until_idle()
    assert ticks == [100, 200, 300]  # fires while the referenced one-shot keeps the run going
    assert ms(virtual_loop.now()) == 350
    assert not every.has_ref
    assert virtual_loop.armed_timer_count == 1
    every.close()


def test_returns_when_a_countdown_finishes_at_its_deadline(virtual_loop: cadence.Loop) -> None:
    events: list[str] = []
    countdown = virtual_loop.countdown(
        virtual_loop.now() + 3,
        0.25,
        lambda remaining: events.append(f"{remaining}@{ms(virtual_loop.now())}"),
        on_finish=lambda: events.append(f"|@{ms(virtual_loop.now())}"),
    )
    virtual_loop.run_until_idle()
    assert events[-1] == "|@3000"  # the run ends with the finish (its timeline: countdown.jsonl)
    assert ms(virtual_loop.now()) == 3000
    assert virtual_loop.armed_timer_count == 0
    assert not hasattr(countdown, "unref")  # only scheduled timers can be unreferenced


def test_an_unreferenced_timer_referenced_again_keeps_the_run_going(
    virtual_loop: cadence.Loop,
) -> None:
    ticks: list[int] = []

    def tick_and_cancel_third(tick: Tick) -> None:
        ticks.append(ms(tick.fire_date))
        if len(ticks) == 3:
            every.cancel()

    every = virtual_loop.schedule(0.1, tick_and_cancel_third, interval=0.1)
    every.unref()
    virtual_loop.run_until_idle()
    assert ticks == []
    assert ms(virtual_loop.now()) == 0
    every.ref()
    every.ref()  # twice is harmless
    assert every.has_ref
    virtual_loop.run_until_idle()
    assert ticks == [100, 200, 300]  # until its own callback cancelled it
    assert ms(virtual_loop.now()) == 300
    every.ref()  # on a cancelled timer: nothing
    assert not every.has_ref


def test_is_busy_from_a_callback_and_stop_ends_it(virtual_loop: cadence.Loop) -> None:
    nested: list[Exception] = []
    ticks: list[int] = []

    def run_again_then_stop(tick: Tick) -> None:
        ticks.append(ms(tick.fire_date))
        try:
            virtual_loop.run_until_idle()
        except cadence.LoopBusy as error:
            nested.append(error)
        if len(ticks) == 3:
            virtual_loop.stop()

    _timer = virtual_loop.schedule(0.1, run_again_then_stop, interval=0.1)
    virtual_loop.run_until_idle()  # a referenced repeating timer: only stop() ends it
    assert len(nested) == 3
    assert "Loop.run_until_idle" in str(nested[0])
    assert ticks == [100, 200, 300]
    assert ms(virtual_loop.now()) == 300


def test_only_timers_that_can_fire_in_the_running_mode_count(virtual_loop: cadence.Loop) -> None:
    virtual_loop.add_mode("other")
    fired: list[str] = []
    virtual_loop.schedule(0.1, lambda tick: fired.append("other"), mode="other")
    virtual_loop.run_until_idle()
    assert fired == []
    assert ms(virtual_loop.now()) == 0
    virtual_loop.schedule(0.2, lambda tick: fired.append("common"), mode="common")
    virtual_loop.run_until_idle()  # default is a common mode
    assert fired == ["common"]
    assert ms(virtual_loop.now()) == 200
    virtual_loop.run_until_idle(mode="other")  # its own mode; the clock is past its date
    assert fired == ["common", "other"]
    assert ms(virtual_loop.now()) == 200
    with pytest.raises(cadence.InvalidArgument):
        virtual_loop.run_until_idle(mode="common")
    with pytest.raises(cadence.UnknownMode):
        virtual_loop.run_until_idle(mode="missing")
    with pytest.raises(TypeError):
        virtual_loop.run_until_idle(mode=None)  # type: ignore[arg-type]


def test_on_a_closed_loop() -> None:
    loop = cadence.Loop.virtual()
    once = loop.schedule(1.0, lambda tick: None)
    loop.close()
    with pytest.raises(cadence.BadHandle):
        loop.run_until_idle()
    for call in (once.unref, once.ref, lambda: once.has_ref):
        with pytest.raises(cadence.BadHandle):
            call()


def test_on_the_real_clock(loop: cadence.Loop) -> None:
    """The run returns after the referenced one-shot, the unreferenced repeating timer fired on
    the way; then a cancel from another thread of the last referenced timer, due in a minute,
    wakes the sleeping run, which returns."""
    ticks: list[Tick] = []
    fired: list[Tick] = []
    every = loop.schedule(0.01, ticks.append, interval=0.01)
    every.unref()
    start = time.monotonic()  # before the one-shot is armed: it is due 0.05 s after
    loop.schedule(0.05, fired.append)
    loop.run_until_idle()
    elapsed = time.monotonic() - start
    assert len(fired) == 1
    assert 0.05 <= elapsed < 5
    assert 1 <= len(ticks) <= elapsed / 0.01 + 1

    far = loop.schedule(60.0, lambda tick: None)

    def cancel_while_running() -> None:
        while not loop.running:
            time.sleep(0.001)
        far.cancel()

    thread = threading.Thread(target=cancel_while_running)
    thread.start()
    start = time.monotonic()
    loop.run_until_idle()
    assert time.monotonic() - start < 30
    thread.join()
    assert not far.pending
    every.cancel()


def test_alive_follows_the_referenced_timers_of_a_mode(virtual_loop: cadence.Loop) -> None:
    """Loop.alive: what a run until idle counts, for a host that drives the loop itself."""
    assert virtual_loop.alive() is False
    once = virtual_loop.schedule(1.0, lambda tick: None)
    assert virtual_loop.alive() is True
    once.unref()
    assert virtual_loop.alive() is False
    once.ref()
    assert virtual_loop.alive() is True
    assert once.cancel()
    assert virtual_loop.alive() is False
    virtual_loop.add_mode("other")
    virtual_loop.schedule(1.0, lambda tick: None, mode="other")
    assert (virtual_loop.alive(), virtual_loop.alive(mode="other")) == (False, True)
    with pytest.raises(cadence.InvalidArgument):
        virtual_loop.alive(mode="common")
    with pytest.raises(cadence.UnknownMode):
        virtual_loop.alive(mode="missing")
    virtual_loop.close()
    with pytest.raises(cadence.BadHandle):
        virtual_loop.alive()


def test_timeout_is_the_time_to_the_next_wakeup(virtual_loop: cadence.Loop) -> None:
    """Loop.timeout, as cadence_loop_timeout: inf with nothing armed, the coalesced wake-up."""
    assert virtual_loop.timeout() == math.inf
    virtual_loop.schedule(0.5, lambda tick: None, tolerance=0.2)
    virtual_loop.schedule(0.6, lambda tick: None)
    assert virtual_loop.timeout() == pytest.approx(0.6)  # one wake-up serves both
    virtual_loop.jump_clock(1.0)
    assert virtual_loop.timeout() == 0.0
    virtual_loop.close()
    with pytest.raises(cadence.BadHandle):
        virtual_loop.timeout()
