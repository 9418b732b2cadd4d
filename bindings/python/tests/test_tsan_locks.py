"""The Swift tests that `make sanitize` runs under ThreadSanitizer guard what their threads share
with a pthread lock (the engine's ``LockedState``, through the tests' ``Shared``, ``Recorder`` or
``Locked``), never with ``Synchronization.Mutex``: on Linux its futex is invisible to the
sanitizer, which then reports the values it orders as races, on the runs where two threads
contend for it (one CI run in several)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SWIFT_TESTS = REPO / "Tests" / "CadenceTests"
#: Helpers every suite may use, checked whatever the filter names.
HELPERS = ["Support", "Clock/ClockTestSupport.swift"]


def sanitized_suites(makefile: str) -> list[str]:
    """The names in the ``--filter`` of the ``swift test --sanitize=thread`` line."""
    found = re.search(r"swift test --sanitize=thread.*--filter '([^']+)'", makefile)
    assert found, "the Makefile runs no Swift tests under ThreadSanitizer"
    return found.group(1).split("|")


def mutex_lines(source: str) -> list[str]:
    """The lines of ``source`` that make a ``Mutex``, comments left out."""
    code = (line.split("//")[0] for line in source.splitlines())
    return [line.strip() for line in code if re.search(r"\bMutex\s*[(<]", line)]


def checked_files() -> list[Path]:
    suites = sanitized_suites((REPO / "Makefile").read_text())
    files = [path for path in SWIFT_TESTS.rglob("*.swift") if path.stem in suites]
    for helper in HELPERS:
        path = SWIFT_TESTS / helper
        files += sorted(path.rglob("*.swift")) if path.is_dir() else [path]
    return files


def test_the_sanitized_swift_tests_use_no_mutex() -> None:
    files = checked_files()
    assert len(files) >= 10  # the suites were found
    found = {
        str(path.relative_to(REPO)): lines
        for path in files
        if (lines := mutex_lines(path.read_text()))
    }
    assert not found, f"use Shared, Recorder or Locked instead of Mutex in {found}"


def test_the_check_finds_a_mutex() -> None:
    source = "let a = Mutex(0)\nlet b = Mutex<[Int]>([])\n// a Mutex(0) here\nlet c = Shared(0)"
    assert mutex_lines(source) == ["let a = Mutex(0)", "let b = Mutex<[Int]>([])"]
    makefile = "\tswift test --sanitize=thread --scratch-path x --filter 'ATests|BTests'\n"
    assert sanitized_suites(makefile) == ["ATests", "BTests"]
