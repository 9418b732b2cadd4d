"""The former names (renamed in 0.4, removed in 0.5) still work, each with a
DeprecationWarning that names its new name and points at the caller's line."""

from __future__ import annotations

import pytest

import cadence
from cadence.testing import Timeline


def test_advance_clock_warns_and_jumps(virtual_loop: cadence.Loop) -> None:
    with pytest.warns(
        DeprecationWarning, match=r"^Loop\.advance_clock is deprecated .*use jump_clock$"
    ) as seen:
        virtual_loop.advance_clock(1.5)
    assert seen[0].filename == __file__
    assert virtual_loop.now() == 1.5
    # Its errors name the name that was called, as C's former names do.
    with (
        pytest.warns(DeprecationWarning, match="advance_clock"),
        pytest.raises(cadence.InvalidArgument, match=r"^Loop\.advance_clock: seconds must be"),
    ):
        virtual_loop.advance_clock(float("nan"))


def test_sink_warns_and_subscribes(virtual_loop: cadence.Loop, timeline: Timeline) -> None:
    publisher = virtual_loop.publish(1.0)
    with pytest.warns(
        DeprecationWarning, match=r"^TimerPublisher\.sink is deprecated .*use subscribe$"
    ) as seen:
        subscription = publisher.sink(timeline)
    assert seen[0].filename == __file__
    with subscription, publisher.connect():
        virtual_loop.run(2)
    assert timeline.events == ["tick@1000", "tick@2000"]
    auto = virtual_loop.publish(1.0).autoconnect()
    with pytest.warns(DeprecationWarning, match=r"^AutoconnectTimerPublisher\.sink is deprecated"):
        auto.sink(timeline).cancel()
