"""malloc_trim(0) trims the whole process's heap, Python's objects included, so Cadence calls it
only once the program opts in (``cadence.set_trim_memory``); read back through C."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest

import cadence

#: conftest's ``run_child``: run this source in a fresh interpreter, with this timeout.
Child = Callable[[str, float], "subprocess.CompletedProcess[str]"]

GROW = (
    "def grow():\n"
    "    with cadence.Loop.virtual() as loop:\n"
    "        timers = [loop.schedule(3600.0, print) for _ in range(100_000)]\n"
    "        assert loop.armed_timer_count == len(timers)\n"
)


def run(run_child: Child, script: str) -> str:
    """Runs ``script`` in a fresh interpreter (a process of its own: the setting and the count
    are process-wide) and returns what it printed."""
    result = run_child("import cadence\n" + GROW + script, 120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_trimming_is_off_by_default_and_growing_tables_make_no_trim(run_child: Child) -> None:
    out = run(run_child, "print(cadence.trims_memory()); grow(); print(cadence.memory_trims())\n")
    assert out == "False\n0\n"


def test_a_program_that_opts_in_gets_trims(run_child: Child) -> None:
    script = (
        "cadence.set_trim_memory(True); print(cadence.trims_memory()); grow()\n"
        "print(cadence.memory_trims() > 0)\n"
        "cadence.set_trim_memory(False); before = cadence.memory_trims(); grow()\n"
        "print(cadence.trims_memory(), cadence.memory_trims() == before)\n"
    )
    assert run(run_child, script) == "True\nTrue\nFalse True\n"


def test_set_trim_memory_takes_a_bool() -> None:
    with pytest.raises(TypeError, match=r"^set_trim_memory: enabled must be a bool, got int$"):
        cadence.set_trim_memory(1)  # type: ignore[arg-type]
    assert cadence.trims_memory() is False
