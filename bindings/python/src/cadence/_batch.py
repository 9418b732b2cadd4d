"""The one-shot fires that C hands over a batch at a time (``cadence_loop_set_fire_batch``): one
call from C per batch of up to 256 instead of one per fire, which is most of what a fire costs
through ctypes.

C keeps each record's one-shot due, and not yet called, until the batch function says that its
call has started: it writes the count of records started to ``*started`` before each callback.
So a callback of an earlier record sees a later record's timer as C and Swift see it without a
batch (pending, with its fire date; ``reset()`` moves it, ``cancel()`` stops it and returns
True), and C marks the record of a timer cancelled or reset that way (its source becomes 0), which
the batch function skips. This module reads the records and that count in place.
"""

from __future__ import annotations

import ctypes
from array import array
from typing import cast

#: ``cadence_fire_record``: userdata (the key), fire date, source (the one-shot's handle), each 8
#: bytes; read as columns of 64-bit words.
WORDS = 3
#: Records in a batch at most (``FireBatch.capacity``): the views span that many.
CAPACITY = 256

_memory = ctypes.pythonapi.PyMemoryView_FromMemory
_memory.restype = ctypes.py_object
_memory.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int)
_WRITE = 0x200  # PyBUF_WRITE
_READ = 0x100  # PyBUF_READ


class Views:
    """Writable views of C's batch memory, made once per address (C passes the same memory for
    every batch of a loop): ``records`` as 64-bit words and ``started``, C's count of calls
    started."""

    __slots__ = ("address", "dates", "raw", "records", "sources", "started", "started_at")

    def __init__(self) -> None:
        self.address = self.started_at = 0
        self.raw = self.records = self.sources = self.started = memoryview(b"")
        self.dates: memoryview[float] = memoryview(b"").cast("d")

    def read(self, address: int, count: int, started: int) -> tuple[list[int], list[float]]:
        """Points the views at a batch's memory; returns its keys and fire dates (copied: C
        changes only sources)."""
        if address != self.address:
            self.address = address
            self.raw = _memory(address, CAPACITY * WORDS * 8, _WRITE)
            self.records = self.raw.cast("Q")
            self.sources = self.records[2::WORDS]
            self.dates = self.raw.cast("d")  # read in place for a batch of one
        if started != self.started_at:
            self.started_at = started
            self.started = _memory(started, 8, _WRITE).cast("Q")
        if count == 1:  # a quiet loop's batch: no slices to make
            return [self.records[0]], [self.dates[1]]
        words = self.records[: count * WORDS]
        # typeshed says tolist() gives ints; a "d" view gives floats.
        return words[0::WORDS].tolist(), cast(
            "list[float]", self.raw[: count * WORDS * 8].cast("d")[1::WORDS].tolist()
        )


class Collected:
    """The records ``cadence_loop_run_pass_collect`` copies a pass's collected fires to, and the
    count it writes after them: one array of 64-bit words, whose items Python reads without
    ctypes (``WORDS`` per record, userdata first; the count at :data:`COUNT`). ``records`` and
    ``count`` are their addresses, the call's arguments (with :data:`CAPACITY` records)."""

    __slots__ = ("count", "records", "words")

    def __init__(self) -> None:
        self.words = array("Q", bytes(8 * (CURSOR + 1)))
        self.records = self.words.buffer_info()[0]
        self.count = self.records + 8 * COUNT


#: Where :class:`Collected`'s words hold the count, after the records.
COUNT = CAPACITY * WORDS
#: Where they hold the next record's first word to queue (Python's alone; C writes the count).
CURSOR = COUNT + 1
