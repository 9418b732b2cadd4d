"""The pytest plugin's fixtures, used as a user's test suite uses them."""

from __future__ import annotations

import cadence
from cadence.testing import Timeline, milliseconds


def test_the_fixture_drives_a_3s_countdown_with_250ms_ticks_exactly(
    virtual_loop: cadence.Loop,
) -> None:
    seen: list[tuple[int, int]] = []
    countdown = virtual_loop.countdown(
        virtual_loop.now() + 3.0,
        0.25,
        lambda left: seen.append((left, milliseconds(virtual_loop.now()))),
    )
    virtual_loop.run(3.0)
    assert seen == [(3, 0), (2, 1000), (1, 2000), (0, 3000)]
    assert countdown.finished
    assert virtual_loop.armed_timer_count == 0


def test_the_timeline_records_values_and_the_finish(
    virtual_loop: cadence.Loop, timeline: Timeline
) -> None:
    assert virtual_loop.is_virtual
    assert virtual_loop.now() == 0.0
    _countdown = virtual_loop.countdown(
        virtual_loop.now() + 3.0, 0.25, timeline, on_finish=timeline.finish
    )
    for step in (1.2, 1.5, 2.0):  # jumps of any size give the same history
        virtual_loop.run(step)
    assert timeline.events == ["3@0", "2@1000", "1@2000", "0@3000", "|@3000"]


def test_a_timeline_records_ticks_at_their_fire_dates(
    virtual_loop: cadence.Loop, timeline: Timeline
) -> None:
    timer = virtual_loop.publish(0.5).autoconnect()
    with timer.subscribe(timeline):
        virtual_loop.run(1.6)
    assert timeline.events == ["tick@500", "tick@1000", "tick@1500"]
    timeline.clear()
    virtual_loop.run(1.0)  # the subscription was cancelled: nothing more
    assert timeline.events == []
    assert repr(timeline) == "<cadence.testing.Timeline []>"


def test_each_test_gets_a_fresh_loop(virtual_loop: cadence.Loop) -> None:
    assert virtual_loop.now() == 0.0
    assert virtual_loop.armed_timer_count == 0
    virtual_loop.schedule(1.0, lambda tick: None)
    virtual_loop.run(0.5)
