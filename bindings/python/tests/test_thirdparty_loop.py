"""The pytest plugin of ``make thirdparty`` (scripts/thirdparty_loop.py), offline: a suite that
makes its loops through asyncio (``asyncio.run`` here, pytest-asyncio or anyio there) runs on the
loop named by ``CADENCE_THIRDPARTY_LOOP``, and the report counts the loops it made and the timers
it armed (``call_later`` and ``call_at`` once each, whichever calls the other)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import cadence

SCRIPTS = Path(__file__).resolve().parents[3] / "scripts"

SUITE = """
import asyncio


def test_an_hour_of_sleep():
    async def main():
        loop = asyncio.get_running_loop()
        start = loop.time()
        await asyncio.sleep(SECONDS)  # call_later
        due = loop.create_future()
        loop.call_at(loop.time(), due.set_result, None)
        await due
        return type(loop).__name__, loop.time() - start

    name, slept = asyncio.run(main())
    assert name == "{name}"
    assert slept >= SECONDS
"""


@pytest.fixture
def plugin(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The plugin and this package on the child session's path; the report's path."""
    source = Path(cadence.__file__).resolve().parents[1]
    path = os.pathsep.join([str(SCRIPTS), str(source), os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", path)
    report = pytester.path / "report.json"
    monkeypatch.setenv("CADENCE_THIRDPARTY_REPORT", str(report))
    return report


@pytest.mark.parametrize(
    ("loop", "name", "seconds"),
    [
        ("default", "_UnixSelectorEventLoop", 0.01),
        ("cadence", "EventLoop", 0.01),
        ("virtual", "VirtualEventLoop", 3600.0),
    ],
)
def test_a_suite_runs_on_the_named_loop(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    plugin: Path,
    loop: str,
    name: str,
    seconds: float,
) -> None:
    monkeypatch.setenv("CADENCE_THIRDPARTY_LOOP", loop)
    pytester.makepyfile(SUITE.replace("SECONDS", repr(seconds)).replace("{name}", name))
    result = pytester.runpytest_subprocess("-p", "thirdparty_loop", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert json.loads(plugin.read_text()) == {"loops": [name], "timers": 2}


def test_an_unknown_loop_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plugin: Path
) -> None:
    monkeypatch.setenv("CADENCE_THIRDPARTY_LOOP", "uvloop")
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "thirdparty_loop")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*CADENCE_THIRDPARTY_LOOP: 'uvloop' is not one of ('default', 'cadence', 'virtual')*"]
    )
