"""The callback table (cadence._table) under abuse: failed starts (bad delays, a closed loop, the
loop past the limit), threads racing its growth, and a long run of starts and cancels. Every free
key holds nothing and appears once, key 0 is never free, and what the table holds is exactly what
is live."""

from __future__ import annotations

import gc
import math
import sys
import threading
from collections.abc import Iterator

import pytest

import cadence
from cadence import _cancels, _table


def _check_table() -> int:
    """Asserts the table is well formed; returns how many userdata it holds once the deferred
    cancels have handed their keys back and the garbage of earlier tests is collected (an ended
    timer's key is its own until it is collected: a collection in the middle of a test would
    change the count)."""
    gc.collect()
    _cancels.flush()
    free = list(_table._free)
    assert len(set(free)) == len(free), "a key is free twice"
    assert 0 not in free
    assert all(_table.slots[key] is None for key in free), "a free key holds something"
    assert all(_table.slots[key + _table.OWNER] == 0 for key in free), "a free key has an owner"
    return _table.held()


def _tick(tick: cadence.Tick) -> None:
    pass


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Threads switch every microsecond, so that they interleave inside the table's steps."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.parametrize("delay", [math.nan, -1.0, math.inf, -math.inf, -5e-324])
def test_a_refused_start_holds_no_key(virtual_loop: cadence.Loop, delay: float) -> None:
    held = _check_table()
    with pytest.raises(cadence.InvalidArgument, match="delay must be >= 0 and finite"):
        virtual_loop.schedule(delay, _tick)  # a float: the hot path, refused by C
    assert _check_table() == held


def test_a_start_on_a_closed_loop_holds_no_key() -> None:
    loop = cadence.Loop.virtual()
    loop.close()
    held = _check_table()
    with pytest.raises(cadence.BadHandle):
        loop.schedule(1.0, _tick)
    assert _check_table() == held


@pytest.mark.usefixtures("fast_switching")
def test_starts_from_threads_racing_the_tables_growth_keep_it_whole() -> None:
    loops = [cadence.Loop.virtual() for _ in range(2)]
    held = _check_table()
    live: list[cadence.ScheduledTimer] = []

    def start(loop: cadence.Loop) -> None:
        mine = []
        for index in range(3000):
            mine.append(loop.schedule(1.0, _tick))
            if index % 3 == 0:
                assert mine.pop().cancel()
        live.extend(mine)

    threads = [threading.Thread(target=start, args=(loops[k % 2],)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(live) == 6 * 2000
    assert _check_table() == held + len(live)
    for timer in live:
        assert timer.cancel()
    assert _check_table() == held
    for loop in loops:
        loop.run(2.0)  # nothing fires: every timer was cancelled
        loop.close()
    assert _check_table() == held


def test_starts_and_cancels_reuse_their_keys(virtual_loop: cadence.Loop) -> None:
    held = _check_table()
    size = len(_table.slots)
    for _ in range(200_000):
        virtual_loop.schedule(1.0, _tick).cancel()
    assert len(_table.slots) <= size + 128  # one growth at most: the keys come back
    assert _check_table() == held


def test_the_loop_past_the_limit_is_out_of_memory_and_holds_nothing() -> None:
    loops: list[cadence.Loop] = []
    held = _check_table()
    try:
        while len(loops) < 2048:  # the limit is 2,048 at once, these and any other test's
            try:
                loops.append(cadence.Loop.virtual())
            except cadence.OutOfMemory:
                break
        with pytest.raises(cadence.OutOfMemory) as info:
            cadence.Loop.virtual()
        assert str(info.value) == (
            "Loop.virtual: loops must number at most 2048 at once (a timer handle names its loop "
            "in 11 bits), got 2049 (destroy one first)"
        )
        assert _check_table() == held
        fired: list[float] = []
        loops[-1].schedule(1.0, lambda tick: fired.append(tick.fire_date))
        loops[-1].run(2.0)
        assert fired == [1.0]  # the loop in the last place
    finally:
        for loop in loops:
            loop.close()
    assert _check_table() == held
    with cadence.Loop.virtual() as again:  # the places are free again
        again.schedule(0.5, _tick)
        again.run(1.0)
    assert _check_table() == held
