"""ruff and mypy --strict over the package, its tests and the Python examples, with the settings
of the repository's pyproject.toml, so that every test run checks them; and the package's
sources compiled by the oldest Python that its requires-python admits (found on PATH or among
pyenv's versions), and the syntax 3.10 relaxed that ruff lets through looked for in them everywhere.

A missing ruff or mypy is a failure (``scripts/install-deps.sh test`` installs them into the
virtual environment ``build/venv`` that ``make python-test`` runs the suite with).
"""

from __future__ import annotations

import ast
import glob
import importlib.util
import re
import shutil
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


def oldest_python(version: str) -> str | None:
    """An interpreter of ``version`` ("3.9"): on PATH, or one that pyenv installed."""
    pyenv = Path.home() / ".pyenv" / "versions"
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(glob.glob(str(pyenv / f"{version}.*" / "bin" / f"python{version}")))
    for candidate in candidates:
        if candidate is None:
            continue
        probe = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    return None


def bare_assignment_expressions(source: str) -> list[int]:
    """The lines of ``source`` with an assignment expression that only 3.10 parses without
    parentheses: a subscript's index, a set's element."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            slots = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        elif isinstance(node, ast.Set):
            slots = node.elts
        else:
            continue
        for slot in slots:
            before = lines[slot.lineno - 1][: slot.col_offset].rstrip()
            if isinstance(slot, ast.NamedExpr) and not before.endswith("("):
                found.append(slot.lineno)
    return found


def test_the_check_for_bare_assignment_expressions_finds_them() -> None:
    assert bare_assignment_expressions("a[b := 1]\nx = 1\n{c := 2}\na[b, c := 3]\n") == [1, 3, 4]
    assert bare_assignment_expressions("a[(b := 1)]\n{(c := 2)}\nx = [d := 1]\n") == []


def test_every_module_parses_on_the_oldest_python_it_supports() -> None:
    # ruff's target-version does not flag all the syntax that 3.10 added (an assignment
    # expression unparenthesized in a subscript got past it): that syntax is looked for here, and
    # where the machine has the oldest interpreter that requires-python admits (pyenv's
    # included), it compiles every module too.
    package = REPO / "bindings" / "python" / "src" / "cadence"
    bare = {
        str(path.relative_to(REPO)): lines
        for path in sorted(package.rglob("*.py"))
        if (lines := bare_assignment_expressions(path.read_text(encoding="utf-8")))
    }
    assert bare == {}, "parenthesize these assignment expressions (3.9 needs it)"
    found = re.search(r'requires-python = ">=(\d+\.\d+)"', (REPO / "pyproject.toml").read_text())
    assert found, "pyproject.toml names no requires-python"
    python = oldest_python(found.group(1))
    if python is not None:
        compile_all = (
            "import pathlib, sys\n"
            "for path in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):\n"
            "    compile(path.read_text(encoding='utf-8'), str(path), 'exec')\n"
        )
        result = subprocess.run(
            [python, "-c", compile_all, str(package)], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stderr
