"""Whether Cadence trims the process's heap: glibc's ``malloc_trim(0)``, off by default."""

from __future__ import annotations

import ctypes

from . import _lib
from .errors import check

_lib_ = _lib.lib


def set_trim_memory(enabled: bool) -> None:
    """Turns on (True) or off (False, the default) the ``malloc_trim(0)`` call that hands freed
    heap pages back to the system when one of Cadence's timer tables grows past 1 MB (C's
    ``cadence_set_trim_memory``, Swift's ``Loop.trimsMemory``).

    A table that grows frees its old buffer, whose pages glibc keeps resident (about 17 bytes per
    timer at a million timers); ``malloc_trim(0)`` gives them back, but it trims the whole
    process's heap, Python's objects included, so it is the program's choice, not a library's.
    Process-wide, for every loop; any thread, any time.

    Raises:
        TypeError: ``enabled`` is not a bool.
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"set_trim_memory: enabled must be a bool, got {type(enabled).__name__}")
    check(_lib_.cadence_set_trim_memory(int(enabled)), "set_trim_memory")


def trims_memory() -> bool:
    """Whether trimming is on (:func:`set_trim_memory`); False by default."""
    out = ctypes.c_int()
    check(_lib_.cadence_trim_memory(ctypes.byref(out)), "trims_memory")
    return bool(out.value)


def memory_trims() -> int:
    """How many ``malloc_trim(0)`` calls Cadence has made in this process (0 unless trimming was
    turned on and a timer table then grew past 1 MB)."""
    out = ctypes.c_uint64()
    check(_lib_.cadence_memory_trims(ctypes.byref(out)), "memory_trims")
    return out.value
