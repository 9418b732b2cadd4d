"""The package's modules import each other without a cycle (imports under ``if TYPE_CHECKING:``
are for annotations only and never run, so they are left out)."""

from __future__ import annotations

import ast
from pathlib import Path

import cadence

PACKAGE = Path(cadence.__file__).resolve().parent


def runtime_imports(path: Path) -> set[str]:
    """The package's modules that ``path`` imports when it runs."""
    tree = ast.parse(path.read_text())
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cadence."):
            found.add((node.module or "").split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("cadence."))
    return found & {p.stem for p in PACKAGE.glob("*.py")}


def graph() -> dict[str, set[str]]:
    return {path.stem: runtime_imports(path) for path in sorted(PACKAGE.glob("*.py"))}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``edges`` as the list of its modules, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(edges.get(module, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(edges):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_the_package_has_no_import_cycle() -> None:
    edges = graph()
    assert "loop" in edges["__init__"]
    assert cycle(edges) is None, " -> ".join(cycle(edges) or [])


def test_the_cycle_check_finds_a_cycle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None
