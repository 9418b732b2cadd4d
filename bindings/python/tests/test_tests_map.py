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
