"""Each cadence.asyncio event loop keeps its armed timers in a table of its own
(``_asyncio_armed``): one left open with timers armed is collected as asyncio's loops are, with
their warning, its descriptors closed; a Cadence loop it was given is left with none of its
timers, also when its close failed; no timer reaches another event loop's table; a Ctrl-C
while C hands a timer back loses none; and a table emptied after a burst gives its keys up."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import types
import weakref

import pytest

import cadence
import cadence.asyncio as ca
from cadence import _state, _table


def open_descriptors() -> int:
    """The process's open descriptors, once the first loop has made those it keeps for good
    (libuv's process-wide signal pipe)."""
    cadence.Loop().close()
    return len(os.listdir("/proc/self/fd"))


def arm_and_leave(loop: ca.EventLoop) -> weakref.ref[ca.EventLoop]:
    """Arms three timers in C (an hour away) and drops the loop without closing it."""

    async def arm() -> None:
        running = asyncio.get_running_loop()
        for _ in range(3):
            running.call_later(3600, print)
        running.call_later(3600, print).cancel()  # one cancel pending as well
        await asyncio.sleep(0)  # a turn: the starts are in C

    loop.run_until_complete(arm())
    assert loop.cadence.armed_timer_count == 3
    return weakref.ref(loop)


@pytest.mark.parametrize("factory", [ca.EventLoop, ca.VirtualEventLoop])
def test_an_event_loop_left_open_with_timers_armed_is_collected(
    factory: type[ca.EventLoop],
) -> None:
    gc.collect()
    descriptors, keys = open_descriptors(), _table.held()
    ref = arm_and_leave(factory())
    with pytest.warns(ResourceWarning, match="unclosed event loop"):
        gc.collect()
    assert ref() is None
    assert open_descriptors() == descriptors  # its Cadence loop and selector closed
    assert _table.held() == keys


def test_a_given_loop_keeps_none_of_a_collected_event_loops_timers() -> None:
    given = cadence.Loop()
    try:
        ref = arm_and_leave(ca.EventLoop(given))
        with pytest.warns(ResourceWarning, match="unclosed event loop"):
            gc.collect()
        assert ref() is None
        assert given.armed_timer_count == 0  # cancelled by the event loop's close
        assert type(given._state) is _state.LoopState  # its own again
        loop = ca.EventLoop(given)  # and free for the next event loop
        try:
            assert loop.run_until_complete(asyncio.sleep(0.001, "next")) == "next"
        finally:
            loop.close()
    finally:
        given.close()


def test_a_closed_event_loop_holds_no_timer() -> None:
    loop = ca.EventLoop()
    arm_and_leave(loop)
    assert loop._armed.held() == 3
    loop.close()
    assert loop._armed.held() == 0  # its Cadence loop's close ended them, through its table


def test_a_table_emptied_after_a_burst_gives_its_keys_up() -> None:
    loop = ca.VirtualEventLoop()
    try:

        async def burst(count: int) -> None:
            await asyncio.gather(*(asyncio.sleep(index % 7) for index in range(count)))

        loop.run_until_complete(burst(5000))
        assert loop.time() == 6.0
        assert loop._armed.held() == 0
        loop.run_until_complete(asyncio.sleep(1))  # the next wait gives the keys up
        assert len(loop._armed.slots) <= 1
        loop.run_until_complete(burst(100))  # a smaller one keeps its keys for the next
        loop.run_until_complete(asyncio.sleep(1))
        assert 7 <= len(loop._armed.slots) <= 100
    finally:
        loop.close()


def test_an_event_loop_whose_cadence_loop_cannot_close_leaves_no_timer_to_the_next() -> None:
    # The event loop made its Cadence loop, and is closed from a callback of that loop's own
    # run: the Cadence loop cannot close then. Its timers are cancelled all the same, so the next
    # event loop given that Cadence loop never sees them (nor gets its own timers called early).
    first = ca.EventLoop()
    fired: list[tuple[str, int]] = []
    for index in range(3):
        first.call_later(0.05, fired.append, ("first", index))
    first.run_until_complete(asyncio.sleep(0))
    given = first.cadence
    failed: list[BaseException] = []

    def close_first(_: cadence.Tick) -> None:
        try:
            first.close()
        except cadence.LoopBusy as error:
            failed.append(error)

    given.schedule(0.001, close_first)
    given.run(0.01)
    assert [type(error) for error in failed] == [cadence.LoopBusy]
    assert first.is_closed()
    assert given.armed_timer_count == 0
    second = ca.EventLoop(given)
    try:
        for index in range(3):
            second.call_later(0.3, fired.append, ("second", index))
        second.run_until_complete(asyncio.sleep(0.1))
        assert fired == []
        second.run_until_complete(asyncio.sleep(0.3))
        assert fired == [("second", 0), ("second", 1), ("second", 2)]
        assert second._armed.held() == 0
    finally:
        second.close()
        given.close()


def test_a_userdata_of_another_table_changes_nothing() -> None:
    # What C may still hand back for a closed event loop's timer (one being fired as it closed)
    # while another event loop runs on the same Cadence loop.
    loop = ca.EventLoop()
    other = ca.EventLoop()
    try:
        timer = loop.call_later(60, print)
        loop.cadence.armed_timer_count  # noqa: B018 - the read hands the start to C
        assert loop._armed.held() == 1
        stranger = other._armed.base  # key 0 of another table
        assert loop._armed.take(stranger) is None
        loop._armed.drop_all([stranger, loop._armed.base + 5])
        assert loop._armed.held() == 1
        assert loop._armed.take(loop._armed.base) is timer
        assert loop._armed.take(loop._armed.base) is None  # taken once
        assert loop._armed.held() == 0
    finally:
        loop.close()
        other.close()


def test_a_ctrl_c_while_c_hands_a_timer_back_loses_none() -> None:
    # SIGINT as the batch callback enters the binding's lookup of the event loop's table, run as
    # CPython runs a signal handler (in the frame it interrupts): kept for after the pass (by
    # Loop.run's handler, in place while the event loop runs), not raised there, where the
    # timer it was handing back would be lost.
    loop = ca.VirtualEventLoop()
    ran: list[str] = []
    loop.call_later(1, ran.append, "a")
    loop.call_later(1, ran.append, "b")
    interrupts = [1]

    def interrupt(frame: types.FrameType, event: str, _: object) -> None:
        if interrupts[0] and event == "call" and frame.f_code.co_name == "untimed":
            interrupts[0] = 0
            handler = signal.getsignal(signal.SIGINT)
            assert callable(handler)
            handler(signal.SIGINT, frame)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        sys.setprofile(interrupt)
        try:
            with pytest.raises(KeyboardInterrupt):
                loop.run_until_complete(asyncio.sleep(2))
        finally:
            sys.setprofile(None)
        assert interrupts == [0]
        assert loop.time() == 1.0
        assert sorted(ran) == []  # in the ready queue: asyncio runs them at its next turn
        loop.run_until_complete(asyncio.sleep(2))
        assert sorted(ran) == ["a", "b"]
        assert loop._armed.held() == 0
    finally:
        loop.close()
        signal.signal(signal.SIGINT, previous)
