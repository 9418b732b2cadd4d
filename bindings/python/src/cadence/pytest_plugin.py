"""The pytest plugin of Cadence: fixtures for testing timer code exactly, in virtual time.

Installing the package registers it with pytest (the ``pytest11`` entry point
``cadence.pytest_plugin``; ``-p no:cadence.pytest_plugin`` turns it off), so every test can ask
for:

- ``virtual_loop``: a fresh :meth:`Loop.virtual() <cadence.Loop.virtual>`, its clock at 0, closed
  after the test. ``virtual_loop.run(seconds)`` moves time on and fires every timer on the way,
  at once and exactly; ``advance_clock(seconds)`` moves it without firing (a blocked thread).
- ``timeline``: a :class:`~cadence.testing.Timeline` on ``virtual_loop``, which records values as
  ``"value@ms"`` strings.

::

    def test_countdown(virtual_loop, timeline):
        countdown = virtual_loop.countdown(
            virtual_loop.now() + 3.0, 0.25, timeline, on_finish=timeline.finish
        )
        virtual_loop.run(3.0)
        assert timeline.events == ["3@0", "2@1000", "1@2000", "0@3000", "|@3000"]

Code under test takes the loop as an argument (or a factory), so that production passes a real
``cadence.Loop()`` and the test passes ``virtual_loop``. Without installing the package, load the
plugin with ``pytest -p cadence.pytest_plugin`` or ``pytest_plugins = ["cadence.pytest_plugin"]``
in a ``conftest.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .loop import Loop
from .testing import Timeline

__all__ = ["timeline", "virtual_loop"]


@pytest.fixture
def virtual_loop() -> Iterator[Loop]:
    """A loop on a virtual clock at 0, for exact and instant timer tests; closed after the test
    (with everything made from it)."""
    with Loop.virtual() as loop:
        yield loop


@pytest.fixture
def timeline(virtual_loop: Loop) -> Timeline:
    """A :class:`~cadence.testing.Timeline` recording on ``virtual_loop``."""
    return Timeline(virtual_loop)
