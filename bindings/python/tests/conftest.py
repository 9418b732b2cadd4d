"""Fixtures shared by the Cadence binding tests.

Wall-clock tests run real loops for fractions of a second and assert with wide windows, since
CI is a loaded two-core machine.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import cadence

# The fixtures of the package's pytest plugin, from the source tree: pyproject.toml's addopts block
# the plugin's entry point, so that an installed copy never stands in for the source.
from cadence.pytest_plugin import timeline, virtual_loop

__all__ = ["timeline", "virtual_loop"]


@pytest.fixture
def loop() -> Iterator[cadence.Loop]:
    """A fresh loop, closed after the test."""
    with cadence.Loop() as fresh:
        yield fresh
