"""The pytest plugin's fixtures, used as a user's test suite uses them."""

from __future__ import annotations

import cadence
from cadence.testing import Timeline, milliseconds


def test_the_fixture_is_a_virtual_loop_that_runs_a_countdown_to_its_end(
    virtual_loop: cadence.Loop,
) -> None:
    seen: list[tuple[int, int]] = []
    countdown = virtual_loop.countdown(
        virtual_loop.now() + 3.0,
        0.25,
        lambda left: seen.append((left, milliseconds(virtual_loop.now()))),
    )
    virtual_loop.run(3.0)  # the timeline itself is Tests/Scenarios/countdown.jsonl's
    assert seen[-1] == (0, 3000)
    assert countdown.finished
    assert virtual_loop.armed_timer_count == 0


def test_the_timeline_records_values_and_the_finish(
    virtual_loop: cadence.Loop, timeline: Timeline
) -> None:
    assert virtual_loop.is_virtual
    assert virtual_loop.now() == 0.0
    virtual_loop.run(1.5)
    timeline(7)
    timeline.finish()
    assert timeline.events == ["7@1500", "|@1500"]  # a value, then the finish, at the clock's ms
    timeline.clear()
    _countdown = virtual_loop.countdown(
        virtual_loop.now() + 3.0, 0.25, timeline, on_finish=timeline.finish
    )
    virtual_loop.run(5.0)
    assert timeline.events[0] == "3@1500"  # as the countdown's callbacks
    assert timeline.events[-1] == "|@4500"


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
