#!/usr/bin/env python3
"""Runs the test suites of third-party asyncio libraries, unchanged, on three event loops:
asyncio's default loop, :class:`cadence.asyncio.EventLoop` and
:class:`cadence.asyncio.VirtualEventLoop` (there without the tests that need real time to pass,
each named in SUITES with why), and prints pass/fail counts, timers armed and wall time per suite
per loop (``make thirdparty``; it needs the network for pip).

    scripts/thirdparty.py [--build DIR] [--library PATH] [SUITE ...]

For each suite (default: all of SUITES) it makes a virtual environment under
``DIR/thirdparty/NAME`` (default DIR: build), downloads the pinned sdist there with
``pip download --no-binary :all:``, unpacks it, installs it with its test requirements (pinned),
then runs its own tests with ``-p thirdparty_loop`` (scripts/thirdparty_loop.py), which sets
the loop through asyncio's event loop policy, with the checkout's ``cadence`` package
(``PYTHONPATH=bindings/python/src``, ``CADENCE_LIBRARY=DIR/libcadence.so``: run ``make c-build``
first). What is installed is kept: a second run only runs the tests. Exits with status 1 when a
suite fails on any loop, or when its loops were not the ones asked for.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTEST = ("pytest==8.3.3", "pytest-asyncio==0.24.0")
NO_COVERAGE = ("-o", "addopts=")  # their addopts ask for pytest-cov, which the tests do not need


def localhost_has_ipv6() -> bool:
    """Whether ``localhost`` resolves to an IPv6 address here (anyio's ipv6 cases bind it)."""
    try:
        return bool(socket.getaddrinfo("localhost", 0, socket.AF_INET6))
    except OSError:
        return False


@dataclass(frozen=True)
class Suite:
    """A library whose own tests exercise asyncio's timers, at a pinned version, run with
    ``pytest TESTS OPTIONS -k KEYWORDS``. ``everywhere`` and ``virtual`` leave tests out, each
    with its reason: on every loop (what this machine cannot run), or on the virtual loop only
    (tests that need real time to pass: wall-clock measurements, real peers the loop cannot
    see). A key is a node id prefix (``--deselect``) or ``-k EXPRESSION``."""

    name: str
    version: str
    tests: tuple[str, ...]
    requirements: tuple[str, ...]
    options: tuple[str, ...] = ()
    keywords: str = ""  # pytest -k
    everywhere: dict[str, str] = field(default_factory=dict)
    virtual: dict[str, str] = field(default_factory=dict)

    def left_out(self, loop: str) -> dict[str, str]:
        """The tests left out on ``loop``, with their reasons."""
        return {**self.everywhere, **(self.virtual if loop == "virtual" else {})}


ANYIO_THREADS = (
    "anyio starts threads of its own (to_thread.run_sync's workers, blocking portals, a TLS "
    "client thread) that report through call_soon_threadsafe: the virtual loop sees no job in "
    "flight and moves its clock while they start, so their timeouts expire early"
)
ANYIO_TEST = ("pytest==8.3.3", "trio==0.27.0", "hypothesis==6.118.8", "psutil==6.1.0",
              "pytest-mock==3.14.0", "trustme==1.2.0", "truststore==0.10.0",
              "exceptiongroup==1.2.2", "coverage==7.6.4")  # fmt: skip
FROM_THREAD, TO_THREAD = "tests/test_from_thread.py", "tests/test_to_thread.py"
TCP = "tests/test_sockets.py::TestTCPStream"
LIVE = (
    "counts the process's live threads (threading.active_count), so a thread of an earlier "
    "test still exiting fails it: seen on asyncio's own loop too, on a loaded machine"
)
ANYIO_NO_IPV6 = "localhost has no IPv6 address on this machine (their ipv6 cases bind it)"
SUITES = (
    # Timeouts as context managers: call_at, cancel and reschedule, loop.time() arithmetic.
    Suite("async-timeout", "5.0.1", ("tests",), PYTEST, NO_COVERAGE),
    # Retrying with asyncio.sleep between attempts; helpers that use get_event_loop().
    Suite(
        "tenacity",
        "9.0.0",
        ("tests/test_asyncio.py", "tests/test_issue_478.py"),
        (*PYTEST, "tornado==6.4.1", "typeguard==4.3.0"),
    ),
    # An LRU cache whose ttl entries expire through call_later.
    Suite("async-lru", "2.0.4", ("tests",), (*PYTEST, "pytest-timeout==2.3.1"), NO_COVERAGE),
    # anyio's asyncio backend (its trio and uvloop cases are not asyncio's loop): cancel scopes,
    # fail_after and move_on_after, sleeps, sockets, streams, threads, subprocesses.
    Suite(
        "anyio",
        "4.6.2.post1",
        ("tests",),
        ANYIO_TEST,
        ("-m", "not network"),
        "not trio and not uvloop",
        everywhere={
            f"{FROM_THREAD}::TestRunAsyncFromThread::test_run_sync_from_thread_pooling": LIVE,
            f"{TO_THREAD}::TestBlockingPortalProvider::test_single_thread[asyncio]": LIVE,
            "tests/test_pytest_plugin.py::test_keyboardinterrupt_during_test": (
                "gives a child pytest session (which runs on asyncio's loop, not the one under "
                "test) 3 s of wall time, which a loaded machine exceeds"
            ),
            **(
                {}
                if localhost_has_ipv6()
                else {
                    "-k not ipv6": ANYIO_NO_IPV6,
                    f"{TCP}::test_happy_eyeballs[asyncio-dualstack]": ANYIO_NO_IPV6,
                    f"{TCP}::test_connection_refused[asyncio-multi]": ANYIO_NO_IPV6,
                }
            ),
        },
        virtual={
            TO_THREAD: ANYIO_THREADS,
            FROM_THREAD: ANYIO_THREADS,
            "tests/streams/test_tls.py::TestTLSListener::test_extra_attributes[asyncio]": (
                ANYIO_THREADS
            ),
            "tests/test_to_process.py::test_cancel_during[asyncio]": (
                "anyio's process pool keeps its worker alive between jobs, and the virtual loop "
                "holds its clock while a subprocess of the loop runs: wait_all_tasks_blocked's "
                "sleep(0.1) never ends, and the loop raises VirtualTimeError after idle_limit"
            ),
            "tests/test_taskgroups.py::test_fail_after_scope_cancelled_before_timeout[asyncio]": (
                "blocks with time.sleep(0.11) inside fail_after(0.1) and expects (xfail strict) "
                "the deadline to have passed: virtual time does not move while the loop blocks"
            ),
        },
    ),
)
LOOPS = ("default", "cadence", "virtual")


def sh(*command: str | Path, cwd: Path | None = None) -> None:
    """Runs a command, quietly unless it fails."""
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, command))}\n{result.stdout}{result.stderr}")


def install(suite: Suite, home: Path) -> tuple[Path, Path]:
    """The suite's venv Python and its unpacked sdist, made when missing or pinned otherwise."""
    python, stamp = home / "venv/bin/python", home / "installed"
    pins = "\n".join([f"{suite.name}=={suite.version}", *suite.requirements])
    if not stamp.exists() or stamp.read_text() != pins:
        print(f"{suite.name} {suite.version}: venv, sdist, test requirements", flush=True)
        for old in home.iterdir():
            shutil.rmtree(old) if old.is_dir() else old.unlink()
        sh(sys.executable, "-m", "venv", home / "venv")
        sh(python, "-m", "pip", "install", "-q", *suite.requirements)
        sdist = home / "sdist"
        sh(python, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
           "-d", sdist, f"{suite.name}=={suite.version}")  # fmt: skip
        (archive,) = sdist.glob("*.tar.gz")
        with tarfile.open(archive) as tar:
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(home, **safe)  # type: ignore[arg-type]
        sh(python, "-m", "pip", "install", "-q", source_of(suite, home))
        stamp.write_text(pins)
    return python, source_of(suite, home)


def source_of(suite: Suite, home: Path) -> Path:
    """The unpacked sdist, named with "_" or "-" as the library's build backend chose."""
    name = f"{suite.name}-{suite.version}"
    (source,) = (p for p in home.iterdir() if p.name.replace("_", "-") == name)
    return source


@dataclass
class Result:
    """One suite's run on one loop."""

    suite: Suite
    loop: str
    code: int  # pytest's exit status
    wall: float  # seconds, the whole pytest process
    tests: int = 0
    failed: int = 0
    skipped: int = 0
    deselected: int = 0
    loops: list[str] = field(default_factory=list)  # the classes of the loops it made
    timers: int = 0  # call_at calls on them
    failures: list[str] = field(default_factory=list)  # the tests that failed
    log: str = ""

    @property
    def passed(self) -> int:
        """Tests that passed (xfail counts as passed, as pytest's exit status does)."""
        return self.tests - self.failed - self.skipped

    @property
    def ok(self) -> bool:
        """It passed on the loops it was meant to run on."""
        return self.code == 0 and sorted(set(self.loops)) == [LOOP_CLASSES[self.loop]]


LOOP_CLASSES = {"default": "_UnixSelectorEventLoop", "cadence": "EventLoop"}
LOOP_CLASSES["virtual"] = "VirtualEventLoop"


def run(suite: Suite, python: Path, source: Path, loop: str, home: Path, library: Path) -> Result:
    """Runs the suite's tests on one loop."""
    junit, report = home / f"junit-{loop}.xml", home / f"loops-{loop}.json"
    junit.unlink(missing_ok=True)
    report.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO / "bindings/python/src"), str(REPO / "scripts")]),
        "CADENCE_LIBRARY": str(library),
        "CADENCE_THIRDPARTY_LOOP": loop,
        "CADENCE_THIRDPARTY_REPORT": str(report),
    }
    left_out = suite.left_out(loop)
    keywords = [suite.keywords] if suite.keywords else []
    keywords += [key.removeprefix("-k ") for key in left_out if key.startswith("-k ")]
    select = [f"--deselect={key}" for key in left_out if not key.startswith("-k ")]
    select += ["-k", " and ".join(f"({k})" for k in keywords)] if keywords else []
    command = [
        str(python), "-m", "pytest", *suite.tests, "-p", "thirdparty_loop",
        "-p", "no:cacheprovider", "-q", f"--junitxml={junit}", *suite.options, *select,
    ]  # fmt: skip
    start = time.monotonic()
    done = subprocess.run(command, cwd=source, env=env, capture_output=True, text=True)
    result = Result(suite, loop, done.returncode, time.monotonic() - start)
    result.log = done.stdout + done.stderr
    if junit.exists():
        node: ElementTree.Element | None = ElementTree.parse(junit).getroot()
        node = node.find("testsuite") if node is not None and node.tag == "testsuites" else node
        if node is not None:
            result.tests, result.skipped = int(node.get("tests", 0)), int(node.get("skipped", 0))
            result.failed = int(node.get("failures", 0)) + int(node.get("errors", 0))
            result.failures = [
                f"{case.get('classname')}.{case.get('name')}"
                for case in node.iter("testcase")
                if case.find("failure") is not None or case.find("error") is not None
            ]
    if found := re.search(r"(\d+) deselected", done.stdout):
        result.deselected = int(found.group(1))
    if report.exists():
        made = json.loads(report.read_text())
        result.loops, result.timers = made["loops"], made["timers"]
    return result


def main() -> int:
    """Installs and runs the suites; prints the table; 1 if any run failed."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=REPO / "build")
    parser.add_argument("--library", type=Path, help="default: BUILD/libcadence.so")
    parser.add_argument("suites", nargs="*", help="default: every suite")
    args = parser.parse_args()
    library = (args.library or args.build / "libcadence.so").resolve()
    if not library.exists():
        sys.exit(f"{library} is missing: run `make c-build` first")
    unknown = set(args.suites) - {s.name for s in SUITES}
    if unknown:
        sys.exit(f"unknown suite(s) {sorted(unknown)}: choose from {[s.name for s in SUITES]}")
    chosen = [s for s in SUITES if not args.suites or s.name in args.suites]
    results = []
    for suite in chosen:
        home = (args.build / "thirdparty" / suite.name).resolve()
        home.mkdir(parents=True, exist_ok=True)
        python, source = install(suite, home)
        for loop in LOOPS:
            r = run(suite, python, source, loop, home, library)
            results.append(r)
            print(
                f"{suite.name} {suite.version} on {loop}: {r.passed} passed, {r.failed} failed, "
                f"{r.skipped} skipped, {r.deselected} deselected, {r.timers} timers, "
                f"{r.wall:.2f} s wall, loops {sorted(set(r.loops)) or 'none'}"
                + ("" if r.ok else "  FAILED"),
                flush=True,
            )
            if not r.ok:
                print(r.log[-6000:])
                print("failed:", *r.failures, sep="\n  ")
    print("\n| suite | loop | passed | failed | skipped | deselected | timers | wall s |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        print(
            f"| {r.suite.name} {r.suite.version} | {r.loop} | {r.passed} | {r.failed} | "
            f"{r.skipped} | {r.deselected} | {r.timers} | {r.wall:.2f} |"
        )
    for suite in chosen:
        for loop, reasons in (("every loop", suite.everywhere), ("virtual", suite.virtual)):
            for key, why in reasons.items():
                print(f"left out on {loop}: {suite.name} {key}: {why}")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
