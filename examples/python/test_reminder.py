"""Tests of ``reminder.py`` in virtual time, with the ``virtual_loop`` and ``timeline`` fixtures of
Cadence's pytest plugin: exact, and instant however long the delays.

In a project of your own, with the package installed, pytest finds the plugin by itself. In this
repository, whose settings load the plugin from the source instead of the installed entry point,
name it (those settings also name an option of pytest-asyncio, so install it beside pytest):

    python -m pytest examples/python/test_reminder.py -p cadence.pytest_plugin
"""

from __future__ import annotations

from reminder import Reminder  # the example beside this file (pytest puts its folder on sys.path)

import cadence
from cadence.testing import Timeline


def test_reminds_every_interval(virtual_loop: cadence.Loop, timeline: Timeline) -> None:
    Reminder(virtual_loop, 60.0, timeline)
    virtual_loop.run(3 * 3600)  # three hours, at once
    assert len(timeline.events) == 180
    assert timeline.events[:3] == ["1@60000", "2@120000", "3@180000"]


def test_snooze_and_dismiss(virtual_loop: cadence.Loop, timeline: Timeline) -> None:
    reminder = Reminder(virtual_loop, 60.0, timeline)
    virtual_loop.run(60)
    reminder.snooze(600)  # nothing for ten minutes, then every minute again
    virtual_loop.run(720)
    assert timeline.events == ["1@60000", "2@660000", "3@720000", "4@780000"]
    reminder.dismiss()
    virtual_loop.run(3600)
    assert len(timeline.events) == 4
    assert virtual_loop.armed_timer_count == 0
