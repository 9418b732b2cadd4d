"""The one-shot fires that C hands over a batch at a time (``cadence_loop_set_fire_batch``): one
call from C per batch of up to 256 instead of one per fire, which is most of what a fire costs
through ctypes.

C counts a batch's one-shots as fired when it hands the batch over, before their callbacks run;
this module keeps the promise that no callback starts once ``cancel()`` has returned. A batch
being delivered is in :data:`DELIVERING`, and each record is taken out (its key set to -1) just
before its callback is called; a cancel that C answers "already ended" looks for the timer among
the records not yet taken (:func:`take`), and takes it out itself: the cancel returns True and
the callback is never called. A cancel from another thread needs none of this: C makes it wait until
the batch is over, as it waits for a running callback.
"""

from __future__ import annotations

import ctypes
from typing import cast

#: ``cadence_fire_record``: userdata (the key), fire date, source (the one-shot's handle), each 8
#: bytes; read as columns of 64-bit words.
WORDS = 3
#: The batches being delivered now, each a :class:`Batch`; at most one per thread running a loop.
DELIVERING: list[Batch] = []


class Batch:
    """One batch's records as columns: ``keys`` (-1 once taken out), ``dates``, and the raw
    records, whose sources are read only by :func:`take`."""

    __slots__ = ("data", "dates", "keys")

    def __init__(self, address: int, count: int) -> None:
        self.data = ctypes.string_at(address, count * WORDS * 8)
        words = memoryview(self.data)
        self.keys: list[int] = words.cast("Q")[0::WORDS].tolist()
        # typeshed says tolist() gives ints; a "d" view gives floats.
        self.dates = cast("list[float]", words.cast("d")[1::WORDS].tolist())

    def index(self, handle: int) -> int | None:
        """Where ``handle``'s record is, if its callback has not been called yet."""
        sources = memoryview(self.data).cast("Q")[2::WORDS]
        for index, key in enumerate(self.keys):
            if key >= 0 and sources[index] == handle:
                return index
        return None


def take(handle: int) -> int | None:
    """Takes the record of ``handle``'s one-shot out of the batch being delivered, if its callback
    has not been called yet; returns its key (the caller's to free), else None. Rare: only for a
    cancel that C answered "already ended" while a batch is delivered."""
    for batch in DELIVERING:
        if (index := batch.index(handle)) is not None:
            key, batch.keys[index] = batch.keys[index], -1
            return key
    return None


def waiting(handle: int) -> bool:
    """Whether ``handle``'s one-shot is in a batch being delivered and its callback not called."""
    return any(batch.index(handle) is not None for batch in DELIVERING)
