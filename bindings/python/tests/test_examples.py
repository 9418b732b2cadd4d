"""The Python examples run, and say what they should."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cadence

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "python"
SOURCE = Path(cadence.__file__).resolve().parents[1]


def run(*arguments: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    result = subprocess.run(
        [sys.executable, *arguments],
        cwd=EXAMPLES,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_ticker() -> None:
    output = run("ticker.py")
    assert 3 <= output.count(" UTC ") <= 6
    assert "wake-ups" in output


def test_virtual_time() -> None:
    assert run("virtual_time.py")


def test_asyncio_ticker() -> None:
    output = run("asyncio_ticker.py")
    assert 5 <= output.count("tick at") <= 7
    assert output.count("asyncio task at") == 2
    assert "threads: 1\n" in output  # attached: no thread of Cadence's
    assert "timers armed after the cancel: 0" in output
    assert "  2 s left\n  1 s left\n  0 s left\n" in output
    assert "poll 1 done" in output
    assert "poller cancelled: True" in output


def test_the_fixture_example_tests_its_reminder() -> None:
    output = run(
        "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "cadence.pytest_plugin",
        "test_reminder.py",
    )  # fmt: skip
    assert "2 passed" in output
