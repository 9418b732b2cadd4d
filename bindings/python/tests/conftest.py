"""Fixtures shared by the Cadence binding tests.

Wall-clock tests run real loops for fractions of a second and assert with wide windows, since
CI is a loaded two-core machine.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import cadence
from cadence import _registry


@pytest.fixture(autouse=True)
def no_leaked_callbacks() -> Iterator[None]:
    """Every test leaves the callback table as it found it once its loops are closed."""
    before = _registry.live_count()
    yield
    gc.collect()
    assert _registry.live_count() == before


@pytest.fixture
def loop() -> Iterator[cadence.Loop]:
    """A fresh loop, closed after the test."""
    with cadence.Loop() as fresh:
        yield fresh
