"""ruff and mypy --strict over the package, its tests and the Python examples, with the settings
of the repository's pyproject.toml, so that every test run checks them.

A missing ruff or mypy is a failure (``scripts/install-deps.sh test`` installs them into the
virtual environment ``build/venv`` that ``make python-test`` runs the suite with).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "--no-cache"],
        ["ruff", "format", "--check", "--no-cache"],
        ["mypy", "--strict"],
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
def test_static_checks_pass(command: list[str]) -> None:
    if importlib.util.find_spec(command[0]) is None:
        pytest.fail(f"{command[0]} is not installed (scripts/install-deps.sh test installs it)")
    result = subprocess.run(
        [sys.executable, "-m", *command],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
