"""A small piece of timer code to test: a reminder that nags every few seconds until dismissed,
and can be snoozed. It takes its loop as an argument, so that a program passes a real
``cadence.Loop()`` and a test passes the ``virtual_loop`` fixture (see ``test_reminder.py``).
"""

from __future__ import annotations

from typing import Callable

import cadence


class Reminder:
    """Calls ``notify(count)`` every ``every`` seconds, starting ``every`` seconds from now, until
    :meth:`dismiss`; :meth:`snooze` skips the reminders of the next ``seconds``."""

    def __init__(self, loop: cadence.Loop, every: float, notify: Callable[[int], object]) -> None:
        self._loop = loop
        self._every = every
        self._notify = notify
        self._count = 0
        self._timer: cadence.Subscription | None = None
        self._wake: cadence.ScheduledTimer | None = None
        self._start()

    def _start(self) -> None:
        self._timer = self._loop.publish(self._every).autoconnect().subscribe(self._fire)

    def _fire(self, tick: cadence.Tick) -> None:
        self._count += 1
        self._notify(self._count)

    def snooze(self, seconds: float) -> None:
        """No reminder for ``seconds``; then every ``every`` seconds again."""
        self._stop()
        self._wake = self._loop.schedule(seconds - self._every, lambda tick: self._start())

    def dismiss(self) -> None:
        """No more reminders."""
        self._stop()

    def _stop(self) -> None:
        for handle in (self._timer, self._wake):
            if handle is not None:
                handle.cancel()
        self._timer = self._wake = None
