"""Former names: each is kept for one minor version after its rename, warning when called."""

from __future__ import annotations

import warnings


def former_name(old: str, new: str) -> None:
    """Warns that ``old`` (as ``"Loop.advance_clock"``) is a former name of ``new``, with a
    :class:`DeprecationWarning` that points at the caller of the former name (two frames up:
    the former name's body calls this). Renamed in 0.4; removed in 0.5."""
    message = f"{old} is deprecated since cadence 0.4 and goes in 0.5: use {new}"
    warnings.warn(message, DeprecationWarning, stacklevel=3)
