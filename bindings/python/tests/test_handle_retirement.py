"""A closed ScheduledTimer never names a later timer, however often its slot is reused: a timer
slot holds at most 16,777,215 timers in turn and is then retired (as in C's
handle_retirement.c and Swift's TimerGenerationTests). ``age_timer_slots`` takes a slot to its last
generation without 16 million schedules."""

from __future__ import annotations

import pytest

import cadence
from cadence.testing import age_timer_slots

# After one timer, the reuses that take a slot to its last generation: two more timers then end
# it; without retirement they would bring its generation round to the first one's (2**24 + 1 has
# the bits of 1).
LAST_GENERATION_REUSES = 2**24 - 3


def test_a_closed_timer_never_acts_on_the_timer_after_its_slots_last(
    virtual_loop: cadence.Loop,
) -> None:
    fired: list[tuple[str, float]] = []
    old = virtual_loop.schedule(1.0, lambda tick: fired.append(("old", tick.fire_date)))
    old.close()
    age_timer_slots(virtual_loop, LAST_GENERATION_REUSES)
    for _ in range(2):
        virtual_loop.schedule(1.0, lambda tick: fired.append(("churn", tick.fire_date))).close()
    new = virtual_loop.schedule(2.0, lambda tick: fired.append(("new", tick.fire_date)))
    assert new._handle != old._handle
    assert old.closed
    with pytest.raises(cadence.BadHandle):
        old.cancel()
    with pytest.raises(cadence.BadHandle):
        old.reset(5.0)
    with pytest.raises(cadence.BadHandle):
        _ = old.fire_date
    with pytest.raises(cadence.BadHandle):
        old.unref()
    old.close()  # a second close gives nothing up
    assert new.pending
    assert new.fire_date == pytest.approx(2.0, abs=1e-9)
    assert virtual_loop.armed_timer_count == 1
    virtual_loop.run(3.0)
    assert [name for name, _ in fired] == ["new"]
    assert fired[0][1] == pytest.approx(2.0, abs=1e-9)


def test_ageing_refuses_a_loop_with_a_timer_or_a_bad_count(virtual_loop: cadence.Loop) -> None:
    timer = virtual_loop.schedule(1.0, lambda tick: None)
    with pytest.raises(cadence.LoopBusy, match="age_timer_slots"):
        age_timer_slots(virtual_loop, 1)
    timer.cancel()
    with pytest.raises(cadence.LoopBusy):  # the open timer still holds its slot
        age_timer_slots(virtual_loop, 1)
    timer.close()
    age_timer_slots(virtual_loop, 1)
    with pytest.raises(TypeError, match="got float"):
        age_timer_slots(virtual_loop, 1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="2\\*\\*32"):
        age_timer_slots(virtual_loop, 2**32)
    with pytest.raises(ValueError, match="got -1"):
        age_timer_slots(virtual_loop, -1)
    virtual_loop.close()
    with pytest.raises(cadence.BadHandle):
        age_timer_slots(virtual_loop, 1)
