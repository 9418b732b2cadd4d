"""A user's test of their own timer code, run by test_wheel.py with the installed package and
pytest in a fresh virtual environment: the ``virtual_loop`` fixture comes from the package's
pytest plugin (its entry point), with no conftest.py."""

from __future__ import annotations

import cadence


def test_a_3s_countdown_with_250ms_ticks(virtual_loop: cadence.Loop) -> None:
    seen: list[str] = []
    _countdown = virtual_loop.countdown(
        3.0, 0.25, lambda left: seen.append(f"{left}@{round(virtual_loop.now() * 1000)}")
    )
    virtual_loop.run(3.0)
    assert seen == ["3@0", "2@1000", "1@2000", "0@3000"]
