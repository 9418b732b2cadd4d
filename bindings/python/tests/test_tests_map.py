"""Tests/README.md maps each behaviour to its tests: every test file under Tests/ (Swift, C, the
scenarios) and bindings/python/tests must be named there, so that a new file cannot be left out
of the map."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
MAP = REPO / "Tests" / "README.md"
#: The folders the map covers (every one under Tests/, whatever is added), and the kinds of file
#: that are tests or their support there.
FOLDERS = ["Tests", "bindings/python/tests"]
SUFFIXES = {".swift", ".c", ".h", ".py", ".jsonl", ".sh", ".cmake"}


def files_under(root: Path) -> list[Path]:
    """The test files under ``root``'s folders, relative to ``root``."""
    found = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            parts = path.relative_to(root).parts
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in parts:
                found.append(path.relative_to(root))
    return found


def names(path: Path, shared: bool) -> list[str]:
    """How the map may name ``path``: its file name; a Swift file also by its suite (the file
    name without ``.swift``); a name several files share (``a.jsonl``) only with the folder that
    holds it (``trailing/a.jsonl``)."""
    if shared:
        return [f"{path.parent.name}/{path.name}"]
    return [path.name, path.stem] if path.suffix == ".swift" else [path.name]


def unnamed(text: str, files: list[Path]) -> list[str]:
    """The files that ``text`` does not name, each as a whole word (``LoopTests`` is not named
    by ``LoopThreadTests``)."""
    shared = Counter(path.name for path in files)
    return [
        str(path)
        for path in files
        if not any(
            re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)
            for name in names(path, shared[path.name] > 1)
        )
    ]


def test_every_test_file_is_named_in_the_map() -> None:
    files = files_under(REPO)
    assert len(files) > 100  # the folders were found
    missing = unnamed(MAP.read_text(), files)
    assert not missing, f"Tests/README.md does not name {missing}: add each to its behaviour's row"


def test_the_check_finds_a_file_left_out() -> None:
    files = [Path("Tests/C/new_case.c"), Path("Tests/C/x/a.jsonl"), Path("Tests/C/y/a.jsonl")]
    assert unnamed("`x/a.jsonl` and `new_case.c`", files) == ["Tests/C/y/a.jsonl"]
    assert unnamed("`a.jsonl`, `old_new_case.c`", files) == [str(path) for path in files]
    swift = [Path("Tests/CadenceTests/LoopTests.swift")]
    assert unnamed("`LoopThreadTests`, `MyLoopTests.swift`", swift) == [str(swift[0])]
    assert unnamed("`LoopTests.closeCancelsEverything`", swift) == []
    assert unnamed("`Clock/LoopTests.swift`", swift) == []


def stale_names(text: str, sources: dict[str, str]) -> list[str]:
    """The tests that ``text`` names and that are not in their file: ``file.py::test_x`` (or
    ``::test_x`` after it, in the same cell of a table) needs ``def test_x`` in ``file.py``;
    ``SuiteTests.method`` (or ``.method`` after it) needs ``func method`` in ``SuiteTests.swift``.
    ``sources`` maps a Python file's name and a Swift file's stem to its text."""
    stale = []
    for cell in text.split("|"):
        owner = ""
        for token in re.findall(r"`([^`]+)`", cell):
            named = re.fullmatch(r"(?:[\w/]+/)?(?:(\w+\.py)::(test_\w+)|(\w+Tests)\.(\w+))", token)
            if named and named.group(4) != "swift":
                owner, test = named.group(1) or named.group(3), named.group(2) or named.group(4)
            elif owner and re.fullmatch(r"::test_\w+|\.\w+", token):
                test = token.lstrip(":.")
            else:
                continue
            word = "def" if owner.endswith(".py") else "func"
            if not re.search(rf"\b{word} {test}\b", sources.get(owner, "")):
                stale.append(f"{owner} {test}")
    return stale


def test_every_test_the_map_names_exists() -> None:
    sources = {path.name: path.read_text() for path in (REPO / FOLDERS[1]).rglob("*.py")}
    for path in (REPO / FOLDERS[0]).rglob("*Tests.swift"):
        sources[path.stem] = path.read_text()
    stale = stale_names(MAP.read_text(), sources)
    assert not stale, f"Tests/README.md names tests that are gone: {stale}"


def test_the_check_finds_a_test_that_is_gone() -> None:
    sources = {"test_a.py": "def test_here(): ...", "LoopTests": "@Test func here() {}"}
    text = "| `test_a.py::test_here`, `::test_gone` | `Clock/LoopTests.here`, `.gone` |"
    text += " `LoopTests.swift` |"  # a file, not a test
    assert stale_names(text, sources) == ["test_a.py test_gone", "LoopTests gone"]
    assert stale_names("| `::test_gone` | `.gone` |", sources) == []  # no file named before
    assert stale_names("| `file.py::test` |", sources) == []  # prose: not a test's name
