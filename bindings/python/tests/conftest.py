"""Fixtures shared by the Cadence binding tests.

Wall-clock tests run real loops for fractions of a second and assert with wide windows, since
CI is a loaded two-core machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import cadence

# The fixtures and hooks of the package's pytest plugin, from the source tree: pyproject.toml's
# addopts block the plugin's entry point, so that an installed copy never stands in for the source.
from cadence.pytest_plugin import pytest_configure, pytest_pyfunc_call, timeline, virtual_loop

__all__ = ["pytest_configure", "pytest_plugins", "pytest_pyfunc_call", "timeline", "virtual_loop"]

#: pytest's own ``pytester``, for tests that run a pytest session of their own.
pytest_plugins = ["pytester"]

#: What ``run_child`` gives: run this source, with this timeout in seconds.
Child = Callable[[str, float], "subprocess.CompletedProcess[str]"]


@pytest.fixture
def loop() -> Iterator[cadence.Loop]:
    """A fresh loop, closed after the test."""
    with cadence.Loop() as fresh:
        yield fresh


@pytest.fixture
def run_child(tmp_path: Path) -> Child:
    """Runs Python source in a child process that imports this checkout's package, and returns
    what it printed and its exit status (for what only a fresh process shows: exit, deadlocks)."""
    source = str(Path(cadence.__file__).resolve().parents[1])

    def run(text: str, timeout: float) -> subprocess.CompletedProcess[str]:
        script = tmp_path / "child.py"
        script.write_text(text)
        return subprocess.run(
            [sys.executable, str(script)],
            env={**os.environ, "PYTHONPATH": source},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    return run
