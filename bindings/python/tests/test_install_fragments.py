"""The install commands of the documentation work as pasted: every ``cmake --install DIR`` in a
code block or an inline code span follows a ``cmake --build DIR`` of the same tree, in that
block or span (an install of a tree that was only configured fails)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", ROOT / "bindings" / "python" / "README.md"]
PAGES += sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"`([^`\n]+)`")
INSTALL = re.compile(r"cmake --install (\S+)")


def fragments(text: str) -> list[str]:
    """The page's fenced code blocks, then its inline code spans outside them."""
    return FENCE.findall(text) + SPAN.findall(FENCE.sub("", text))


def unbuilt_installs(fragment: str) -> list[str]:
    """The trees that `fragment` installs before it has built them."""
    return [
        match.group(1)
        for match in INSTALL.finditer(fragment)
        if f"cmake --build {match.group(1)}" not in fragment[: match.start()]
    ]


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_each_install_fragment_builds_first(page: Path) -> None:
    bad = [fragment for fragment in fragments(page.read_text()) if unbuilt_installs(fragment)]
    assert bad == []


def test_the_check_finds_an_install_without_a_build() -> None:
    page = "Install it: `cmake -S . -B build -G Ninja && cmake --install build --prefix /opt/x`.\n"
    assert unbuilt_installs(fragments(page)[0]) == ["build"]
    fixed = page.replace("&& cmake --install", "&& cmake --build build && cmake --install")
    assert unbuilt_installs(fragments(fixed)[0]) == []
    block = "cmake --build b\ncmake --install b\n"
    assert fragments(f"```sh\n{block}```\n") == [block]
