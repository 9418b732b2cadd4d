"""The scenario corpus (Tests/Scenarios, described in its README.md) on the Python face: every
scenario run on a fresh loop, each timeline compared exactly, real-clock ones within their ranges.

The Swift test (Tests/CadenceTests/ScenarioTests.swift) and the C program (Tests/C/scenarios.c)
run the same files. Every real-clock scenario runs twice: on a loop that ``Loop.run`` runs, then,
named with " (hosted)", on one that a ``select`` host drives through ``fileno``, ``timeout`` and
``run_pass``, so that an owned and a hosted loop cannot drift apart unnoticed. Each runner
writes what passed to ``build/scenario-results/<language>.txt``;
:func:`test_every_language_agrees` reads the three and names a scenario that fails in some
languages only: a parity defect.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import cadence
from cadence import MissedTickPolicy, Tick

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "Tests" / "Scenarios"
RESULTS = Path(os.environ.get("CADENCE_SCENARIO_RESULTS", REPO / "build" / "scenario-results"))

Step = dict[str, Any]


@dataclass
class Scenario:
    """One scenario: its header line and its steps, with where it starts."""

    header: Step
    where: str
    steps: list[Step] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.header["scenario"])


def load_corpus(corpus: Path = CORPUS) -> tuple[list[Scenario], int]:
    """Every scenario of the corpus, files in name order, and the corpus digest (FNV-1a 64 of
    the files' bytes in that order, as the other runners compute it). ValueError, naming the
    file and line, for a line that is not a flat JSON object of strings, numbers and booleans,
    and for a step before its file's first scenario line (a scenario ends with its file)."""
    scenarios: list[Scenario] = []
    digest = 0xCBF29CE484222325
    for path in sorted(corpus.glob("*.jsonl")):
        data = path.read_bytes()
        for byte in data:
            digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        try:
            text = data.decode()
        except UnicodeDecodeError as error:
            raise ValueError(f"{path.name}: not UTF-8 ({error})") from None
        in_file = False
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path.name}:{number}"
            try:
                step = json.loads(line)
            except ValueError as error:
                raise ValueError(f"{where}: not a flat JSON object ({error})") from None
            if not isinstance(step, dict) or not all(
                isinstance(value, (str, int, float)) for value in step.values()
            ):
                raise ValueError(f"{where}: not a flat JSON object of strings, numbers, booleans")
            if "scenario" in step:
                scenarios.append(Scenario(step, where))
                in_file = True
            elif in_file:
                scenarios[-1].steps.append(step)
            else:
                raise ValueError(f"{where}: a step before the file's first scenario line")
    return scenarios, digest


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"a.jsonl": '{"scenario": "a"}\n', "b.jsonl": '{"do": "run", "for": 1}\n'},
            "b.jsonl:1: a step before the file's first scenario line",
        ),
        (
            {"a.jsonl": '{"scenario": "a"}\n{"do": "run", "for": soon}\n'},
            "a.jsonl:2: not a flat JSON object (Expecting value",
        ),
        (
            {"a.jsonl": '{"scenario": "a", "steps": [1]}\n'},
            "a.jsonl:1: not a flat JSON object of strings, numbers, booleans",
        ),
    ],
    ids=["step first", "bare word", "nested"],
)
def test_a_malformed_file_is_refused_with_its_line(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ValueError, match="^" + re.escape(message)):  # json's words may follow
        load_corpus(tmp_path)


class Failed(Exception):
    """A scenario's expectation that did not hold."""


@dataclass
class Record:
    """What one subscription, timer, countdown or poller delivered."""

    events: list[str] = field(default_factory=list)
    dates: list[float] = field(default_factory=list)
    ran: list[int] = field(default_factory=list)
    lateness: list[float] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    checked: int = 0  # events at the last expect that named this record


def in_range(value: float, spec: str) -> bool:
    """Whether ``value`` matches ``spec``: ``"N"``, ``"A..B"``, ``"A.."`` or ``"..B"``."""
    if ".." not in spec:
        return value == float(spec)
    low, high = spec.split("..")
    return (low == "" or value >= float(low)) and (high == "" or value <= float(high))


class Run:
    """One scenario on a fresh loop."""

    def __init__(self, header: Step, hosted: bool = False) -> None:
        self.virtual = header.get("loop", "virtual") == "virtual"
        self.hosted = hosted
        self.loop = cadence.Loop.virtual() if self.virtual else cadence.Loop()
        self.origin = self.loop.now()
        self.objects: dict[str, Any] = {}
        self.records: dict[str, Record] = {}
        self.order: list[str] = []
        self.triggers: dict[tuple[str, int], list[Step]] = {}

    def ms(self, seconds: float) -> int:
        return round((seconds - self.origin) * 1000)

    def record(self, name: str, label: str, date: float, skipped: int = 0) -> None:
        now = self.loop.now()
        if now < date:
            raise Failed(f"{name}: {label} ran at {self.ms(now)} ms, before its fire date")
        record = self.records[name]
        record.events.append(f"{label}@{self.ms(date)}")
        record.dates.append(date)
        record.ran.append(self.ms(now))
        record.lateness.append((now - date) * 1000)
        record.skipped.append(skipped)
        self.order.append(name)
        for step in self.triggers.pop((name, len(record.events)), []):
            self.step(step)

    def ticks(self, name: str) -> Callable[[Tick], None]:
        self.records[name] = Record()

        def receive(tick: Tick) -> None:
            self.record(name, str(len(self.records[name].events)), tick.fire_date, tick.skipped)

        return receive

    def step(self, step: Step) -> None:
        do = step["do"]
        name = str(step.get("name", ""))
        mode = str(step.get("mode", "default"))
        policy = MissedTickPolicy[str(step.get("missed", "skip")).upper()]
        if do == "publish":
            publisher = self.loop.publish(
                step["interval"],
                tolerance=step.get("tolerance", 0.0),
                mode=mode,
                missed_ticks=policy,
            )
            self.objects[name] = publisher.autoconnect() if step.get("autoconnect") else publisher
        elif do == "subscribe":
            self.objects[name] = self.objects[step["to"]].subscribe(self.ticks(name))
        elif do == "connect":
            self.objects[name] = self.objects[step["to"]].connect()
        elif do == "cancel":
            self.objects[name].cancel()
        elif do == "schedule":
            interval = step.get("interval")
            self.objects[name] = self.loop.schedule(
                step["after"],
                self.ticks(name),
                interval=interval,
                tolerance=step.get("tolerance", 0.0),
                mode=mode,
                missed_ticks=policy if interval is not None else None,
            )
        elif do == "reset":
            self.objects[name].reset(step["after"])
        elif do == "countdown":
            self.countdown(name, step)
        elif do == "poller":
            self.poller(name, step)
        elif do == "active":
            self.objects[name].set_active(bool(step["value"]))
        elif do == "add_mode":
            self.loop.add_mode(mode)
        elif do == "add_common_mode":
            self.loop.add_common_mode(mode)
        elif do == "run":
            if self.hosted:
                self.run_hosted(step["for"], mode)
            else:
                self.loop.run(step["for"], mode=mode)
        elif do == "block":
            if self.virtual:
                self.loop.jump_clock(step["for"])
            else:
                time.sleep(step["for"])
        elif do == "on":
            then = {**step, "do": step["then"], "name": step.get("target", name)}
            self.triggers.setdefault((name, int(step["event"])), []).append(then)
        elif do == "expect":
            self.expect(step)
        else:
            raise Failed(f"unknown step {do!r}")

    def run_hosted(self, seconds: float, mode: str) -> None:
        """``loop.run(seconds)`` as a ``select`` host makes it: a pass, then a wait for the
        descriptor or the timeout and a pass, until ``seconds`` have passed."""
        descriptor = self.loop.fileno()
        end = self.loop.now() + seconds
        self.loop.run_pass(mode=mode)
        while (left := end - self.loop.now()) > 0:
            wait = min(self.loop.timeout(), left)
            select.select([descriptor], [], [], math.ceil(wait * 1000) / 1000)
            self.loop.run_pass(mode=mode)

    def countdown(self, name: str, step: Step) -> None:
        self.records[name] = Record()

        def value(remaining: int) -> None:
            self.record(name, str(remaining), self.loop.now())

        def finish() -> None:
            self.record(name, "|", self.loop.now())

        deadline = self.loop.now() + step["deadline"]
        self.objects[name] = self.loop.countdown(deadline, step["tick"], value, on_finish=finish)

    def poller(self, name: str, step: Step) -> None:
        self.records[name] = Record()
        busy = float(step.get("busy", 0.0))

        def operation(poll: cadence.Poll) -> None:
            self.record(name, str(poll.number), poll.date)
            if busy > 0:
                self.loop.schedule(busy, lambda _: poll.finish(), mode="common")
            else:
                poll.finish()

        self.objects[name] = self.loop.poller(
            step["interval"], operation, tolerance=step.get("tolerance"), finish_on_return=False
        )

    def expect(self, step: Step) -> None:
        """Checks every field the step gives; raises Failed naming the first that does not hold."""
        name = str(step.get("name", ""))
        record = self.records.get(name, Record())
        lines: list[str] = []

        def same(what: str, actual: str) -> None:
            if actual != " ".join(str(step[what]).split()):
                lines.append(f"{name} {what}: got '{actual}', expected '{step[what]}'")

        def within(what: str, actual: float) -> None:
            if not in_range(actual, str(step[what])):
                lines.append(f"{name} {what}: got {actual:g}, expected {step[what]}")

        for what, want in step.items():
            if what in ("do", "name", "event", "then", "target"):  # also as an `on` step's `then`
                continue
            if what == "timeline":
                same(what, " ".join(record.events))
            elif what == "ran":
                same(what, " ".join(map(str, record.ran)))
            elif what == "skipped":
                same(what, " ".join(map(str, record.skipped)))
            elif what == "order":
                same(what, " ".join(self.order))
            elif what == "count":
                within(what, len(record.events))
            elif what == "new":
                within(what, len(record.events) - record.checked)
            elif what == "skipped_max":
                within(what, max(record.skipped, default=0))
            elif what == "lateness":
                for late in record.lateness:
                    within(what, late)
            elif what == "dates_in":
                self.dates_in(record, str(want), lines)
            elif what == "wakeups":
                within(what, self.loop.wakeups)
            elif what == "armed":
                within(what, self.loop.armed_timer_count)
            elif what == "now":
                within(what, self.ms(self.loop.now()))
            elif what == "tolerance":
                within(what, self.objects[name].tolerance)
            elif what == "fire_date":
                same(what, self.fire_date(name))
            else:
                lines.append(f"unknown expectation {what!r}")
        record.checked = len(record.events)
        if lines:
            raise Failed("; ".join(lines))

    def dates_in(self, record: Record, other: str, lines: list[str]) -> None:
        theirs = self.records[other].dates
        if not all(any(abs(date - d) < 1e-6 for d in theirs) for date in record.dates):
            lines.append(f"dates_in {other}: not every date is among {other}'s")

    def fire_date(self, name: str) -> str:
        date = self.objects[name].fire_date
        return "none" if date is None else str(self.ms(date))


def run_scenario(scenario: Scenario, hosted: bool = False) -> str | None:
    """Runs one scenario (with ``hosted``, its runs by a ``select`` host); returns None if it
    passed, else what went wrong."""
    run = Run(scenario.header, hosted)
    try:
        for step in scenario.steps:
            run.step(step)
    except (Failed, cadence.CadenceError, ValueError, TypeError, KeyError) as error:
        return f"{type(error).__name__}: {error}" if not isinstance(error, Failed) else str(error)
    finally:
        run.loop.close()
    return None


def test_every_scenario_passes(capsys: pytest.CaptureFixture[str]) -> None:
    scenarios, digest = load_corpus()
    assert len(scenarios) >= 60
    assert len({s.name for s in scenarios}) == len(scenarios), "scenario names must be unique"
    runs = [(s, False) for s in scenarios] + [
        (s, True) for s in scenarios if s.header.get("loop") == "real"
    ]
    outcomes = [
        (f"{s.name} (hosted)" if hosted else s.name, s, run_scenario(s, hosted))
        for s, hosted in runs
    ]
    failures = [(name, s, error) for name, s, error in outcomes if error is not None]
    failed = {name for name, _, _ in failures}
    RESULTS.mkdir(parents=True, exist_ok=True)
    lines = [f"digest {digest:016x}"] + [
        f"{'fail' if error else 'pass'} {name}" for name, _, error in outcomes
    ]
    (RESULTS / "python.txt").write_text("\n".join(lines) + "\n")
    with capsys.disabled():
        for name, scenario, error in failures:
            print(f"\nFAIL {name} ({scenario.where}): {error}")
        print(f"\nscenarios (Python): {len(runs) - len(failures)} passed, {len(failures)} failed")
    assert not failures, f"{len(failures)} scenarios failed: " + ", ".join(sorted(failed))


def test_every_language_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    """A scenario that passes in one language and fails in another is a parity defect. Compares
    the results the runners left for this corpus (results of an older corpus are ignored)."""
    scenarios, digest = load_corpus()
    outcomes: dict[str, dict[str, str]] = {}
    for path in sorted(RESULTS.glob("*.txt")):
        lines = path.read_text().splitlines()
        if lines and lines[0] == f"digest {digest:016x}":
            pairs = (line.split(" ", 1) for line in lines[1:])
            outcomes[path.stem] = {name: outcome for outcome, name in pairs}
    defects = []
    names = [s.name for s in scenarios]
    names += [f"{s.name} (hosted)" for s in scenarios if s.header.get("loop") == "real"]
    for name in names:
        seen = {language: got[name] for language, got in outcomes.items() if name in got}
        if len(set(seen.values())) > 1:
            failing = sorted(language for language, outcome in seen.items() if outcome == "fail")
            defects.append(f"parity defect: '{name}' fails in {', '.join(failing)} only")
    with capsys.disabled():
        languages = ", ".join(outcomes) or "no results"
        print(f"\nscenario parity across {languages}: {len(defects)} defects")
        for defect in defects:
            print(defect)
    assert not defects
