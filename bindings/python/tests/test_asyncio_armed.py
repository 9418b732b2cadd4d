"""Each cadence.asyncio event loop keeps its armed timers in a table of its own
(``_asyncio_armed``): one left open with timers armed is collected as asyncio's loops are, with
their warning, its descriptors closed; a Cadence loop it was given is left with none of its
timers; and a table emptied after a burst gives its keys up."""

from __future__ import annotations

import asyncio
import gc
import os
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
