"""The code fragments of docs/python.md run as printed.

Every ```python block runs in a fresh interpreter. A fragment that starts with an import is a
whole program; any other is a piece of a session and runs after ``import time``, ``import
cadence`` and ``loop = cadence.Loop()``, the names the page's sections share. A fragment that
defines ``test_...(virtual_loop, timeline)`` functions has them called on a virtual loop, and one
that defines ``async def test_...()`` has them run on ``cadence.asyncio``'s virtual event loop.
Interactive fragments (``>>>``, shown with their output) are not run. The fragments run at once,
each in its own process, since most of them spend their time in ``loop.run``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import cadence

DOCS = Path(__file__).resolve().parents[3] / "docs" / "python.md"
SOURCE = Path(cadence.__file__).resolve().parents[1]

SESSION = "import time\nimport cadence\nloop = cadence.Loop()\n"
TESTS = """
with cadence.Loop.virtual() as virtual_loop:
    {name}(virtual_loop, cadence.testing.Timeline(virtual_loop))
"""
ASYNC_TESTS = """
import cadence.asyncio
cadence.asyncio.run({name}(), virtual=True)
"""


def fragments() -> list[tuple[str, str]]:
    """Each runnable ```python block of the page as (the heading it is under, its code)."""
    found: list[tuple[str, str]] = []
    heading = ""
    lines = iter(DOCS.read_text().splitlines())
    for line in lines:
        if line.startswith("#"):
            heading = line.lstrip("# ")
        elif line == "```python":
            code = "\n".join(iter(lambda: next(lines), "```")) + "\n"
            if not code.startswith(">>>"):
                found.append((heading, code))
    return found


def program(code: str) -> str:
    """The fragment as a program that runs alone."""
    if not code.startswith(("import ", "from ")):
        code = SESSION + code
    for name in re.findall(r"^def (test_\w+)\(virtual_loop, timeline\)", code, re.MULTILINE):
        code += TESTS.format(name=name)
    for name in re.findall(r"^async def (test_\w+)\(\)", code, re.MULTILINE):
        code += ASYNC_TESTS.format(name=name)
    return code


FRAGMENTS = fragments()


class Run:
    """One fragment running in its own interpreter; :meth:`result` waits for it once."""

    def __init__(self, code: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", program(code)],
            env={**os.environ, "PYTHONPATH": str(SOURCE)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.output: tuple[int, str, str] | None = None

    def result(self) -> tuple[int, str, str]:
        """The exit status, standard output and standard error."""
        if self.output is None:
            out, err = self.process.communicate(timeout=120)
            self.output = (self.process.returncode, out, err)
        return self.output

    def stop(self) -> None:
        if self.output is None:
            self.process.kill()
            self.process.communicate()


@pytest.fixture(scope="module")
def runs() -> Iterator[list[Run]]:
    """Every fragment, started at once, in the page's order."""
    started = [Run(code) for _, code in FRAGMENTS]
    yield started
    for run in started:
        run.stop()


def test_the_page_has_the_fragments_of_each_section() -> None:
    headings = [heading for heading, _ in FRAGMENTS]
    for section in ("Quick start", "Loops", "Modes", "Countdown", "Poller", "asyncio"):
        assert section in headings
    assert any("def test_countdown(virtual_loop, timeline)" in code for _, code in FRAGMENTS)


@pytest.mark.parametrize("index", range(len(FRAGMENTS)), ids=[name for name, _ in FRAGMENTS])
def test_the_fragment_runs(index: int, runs: list[Run]) -> None:
    status, out, err = runs[index].result()
    assert (status, err) == (0, ""), FRAGMENTS[index][1] + out + err


def test_the_asyncio_fragment_shows_each_part_as_it_goes(runs: list[Run]) -> None:
    (index,) = (i for i, (heading, _) in enumerate(FRAGMENTS) if heading == "asyncio")
    _, out, _ = runs[index].result()
    lines = out.splitlines()
    after = lines[lines.index("one second later") + 1 :]
    assert after[:3] == ["2 s left", "1 s left", "0 s left"]
    assert "poll 1 done" in after
    assert "poll 2 done" in after
    assert after[-1] == "poller cancelled: True"
