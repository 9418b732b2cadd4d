"""Helpers for testing timer code exactly, in virtual time (see also :mod:`cadence.pytest_plugin`).

A :class:`Timeline` records what happens on a loop as strings such as ``"3@1000"`` (the value 3
at 1000 ms of the loop's clock) and ``"|@3000"`` (finished at 3000 ms), the notation of Swift's
``TimelineRecorder``, so that a whole history is one ``assert``::

    def test_countdown(virtual_loop: cadence.Loop, timeline: Timeline) -> None:
        countdown = virtual_loop.countdown(
            virtual_loop.now() + 3.0, 0.25, timeline, on_finish=timeline.finish
        )
        virtual_loop.run(3.0)
        assert timeline.events == ["3@0", "2@1000", "1@2000", "0@3000", "|@3000"]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _lib
from .errors import check
from .tick import Tick

if TYPE_CHECKING:
    from .loop import Loop

__all__ = ["Timeline", "age_timer_slots", "milliseconds"]


def milliseconds(seconds: float) -> int:
    """``seconds`` as whole milliseconds, rounded to the nearest.

    Durations are rounded up to whole nanoseconds and dates come back through the C API as
    doubles, so a virtual date may read a nanosecond after its decimal (a 0.067 s delay fires at
    0.067000001): compare times in milliseconds.
    """
    return round(seconds * 1000)


def age_timer_slots(loop: Loop, reuses: int) -> None:
    """Moves the generation of every timer slot ``loop`` has used ``reuses`` further, as if each
    had held that many more timers (``cadence_loop_age_timer_slots``), for tests of stale
    handles. A slot holds at most 16,777,215 timers in turn and is then retired, so that a closed
    :class:`~cadence.ScheduledTimer` never names a later timer; this reaches that limit without
    16 million schedules. Generations only move forward. Any thread.

    Args:
        loop: the loop, real or virtual.
        reuses: an int from 0 to 2**32 - 1.

    Raises:
        TypeError: ``reuses`` is not an int.
        ValueError: ``reuses`` is out of range.
        LoopBusy: a timer is armed on the loop, or a scheduled timer's handle is not closed.
        BadHandle: the loop is closed.
    """
    where = "cadence.testing.age_timer_slots"
    if not isinstance(reuses, int) or isinstance(reuses, bool):
        raise TypeError(f"{where}: reuses must be an int, got {type(reuses).__name__}")
    if not 0 <= reuses < 2**32:
        raise ValueError(f"{where}: reuses must be from 0 to 2**32 - 1, got {reuses}")
    check(_lib.lib.cadence_loop_age_timer_slots(loop._state.handle, reuses), where, loop)


class Timeline:
    """Records values with the time of the loop's clock when they arrive (Swift's
    ``TimelineRecorder(clock:)``, with the same ``record`` and ``finish``).

    Use the object itself as a callback (``timer.subscribe(timeline)``,
    ``loop.countdown(deadline, tick, timeline, on_finish=timeline.finish)``), or call
    :meth:`record`. A :class:`~cadence.Tick` is recorded as ``"tick"``, anything else with
    ``str()``. Times are whole milliseconds of :meth:`Loop.now <cadence.Loop.now>`: virtual time
    from 0 on a virtual loop.

    Attributes:
        events: what happened so far, in order, such as ``["3@0", "2@1000", "|@3000"]``.
    """

    def __init__(self, loop: Loop) -> None:
        self.loop = loop
        self.events: list[str] = []

    def record(self, value: object) -> None:
        """Records ``value`` at the current time (``"value@ms"``)."""
        label = "tick" if isinstance(value, Tick) else str(value)
        self.events.append(f"{label}@{milliseconds(self.loop.now())}")

    #: The same as :meth:`record`, so that the timeline is a callback.
    __call__ = record

    def finish(self) -> None:
        """Records the end of a stream at the current time (``"|@ms"``); for ``on_finish``."""
        self.events.append(f"|@{milliseconds(self.loop.now())}")

    def clear(self) -> None:
        """Forgets the events recorded so far."""
        self.events.clear()

    def __repr__(self) -> str:
        return f"<cadence.testing.Timeline {self.events!r}>"
