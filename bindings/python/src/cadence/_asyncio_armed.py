"""The table of one :mod:`cadence.asyncio` event loop's timers armed in C: what their userdata
names.

Each timer handed to C takes a key here (an index), and C's userdata is the key plus the table's
:attr:`Armed.base`: ``_table.UNTIMED`` (its callback is called with no ``Tick``) and the table's
number, so that a userdata of one table is never taken for a key of another (a timer that C
still calls after its event loop closed, while another event loop runs on the same Cadence
loop): each lookup checks it, and one that is not this table's, or names a free key, changes
nothing.

The table is the event loop's own, not the binding's callback table (``_table``), so that an
event loop left open with timers armed is garbage like asyncio's: the loop, this table and its
timers (each holds its loop) form a cycle that nothing outside holds. The Cadence loop's state,
which a finalizer keeps, reaches the table only through a weak reference
(``_asyncio_pending.install``); once the collector has cleared it, C's calls for the table's keys
find nothing and change nothing.

Threads: the event loop's. Every change comes from its flush, its pass, or C's callbacks during
its pass, all on the thread that runs it (or ran it last, or made it: only that one flushes,
``_asyncio_pending``); ``close()`` from another thread takes that over.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from ._table import UNTIMED

_numbers = itertools.count(1)


class Armed:
    """The timers of one event loop armed in C, by key (see the module's notes).

    ``slots`` holds each armed timer at its key, None at the free keys; ``free`` lists the free
    keys. The event loop's pass and C's batch callback read and empty slots directly (hot paths),
    then hand the keys back with :meth:`free_all` or ``free.append``.
    """

    __slots__ = ("__weakref__", "base", "free", "slots")

    #: Free keys above which a table whose every key is free gives them up (:meth:`shrink`).
    KEEP = 1024

    def __init__(self) -> None:
        self.slots: list[Any] = []
        self.free: list[int] = []
        #: Added to a key, C's userdata: ``UNTIMED`` and the table's number (16 bits, at bit 32).
        self.base = UNTIMED + ((next(_numbers) & 0xFFFF) << 32)

    def hold_all(self, timers: Sequence[Any], keys: list[int]) -> None:
        """Holds each timer until C is done with it (a loop turn's starts, or one), appending to
        ``keys`` C's userdata for each, its key plus :attr:`base`. Each key is in ``keys`` before
        it leaves the free ones, so that an interrupt leaves nothing :meth:`give_back` cannot
        find."""
        add, free, slots, base = keys.append, self.free, self.slots, self.base  # a hot path
        for timer in timers:
            if free:
                key = free[-1]
                add(key + base)
                free.pop()
                slots[key] = timer
            else:
                key = len(slots)
                add(key + base)
                slots.append(timer)

    def give_back(self, held: list[tuple[int, Any]]) -> None:
        """Frees the keys of ``held``, pairs of C's userdata (as :meth:`hold_all` listed it) and
        the timer it was for, whose starts C never had: also the key of one an interrupt cut,
        taken from the free ones but not yet holding its timer. May be repeated."""
        slots, free, base, end = self.slots, self.free, self.base, len(self.slots)
        for data, timer in held:
            key = data - base
            if not 0 <= key < end:  # listed, not yet appended to the slots
                continue
            if slots[key] is timer:
                slots[key] = None
                free.append(key)
            elif slots[key] is None and key not in free:  # a rare path: O(free) is fine
                free.append(key)

    def take(self, userdata: int) -> Any:
        """The timer at C's ``userdata`` (a key plus :attr:`base`), its key freed: C passes it
        no more. None if the key is free (its timer was taken already) or not this table's."""
        key, slots = userdata - self.base, self.slots
        if not 0 <= key < len(slots) or (timer := slots[key]) is None:
            return None
        slots[key] = None
        self.free.append(key)
        return timer

    def drop_all(self, userdata: Iterable[int]) -> None:
        """Frees the keys of C's ``userdata`` (each a key plus :attr:`base`): their timers were
        cancelled in C. A userdata not of this table, or of a free key, or a negative error
        code in its place (C's answer for a timer that had ended), changes nothing; so it may be
        repeated over the same userdata after an interrupt (C hands each key back once)."""
        slots, free, base, end = self.slots, self.free, self.base, len(self.slots)
        for data in userdata:
            key = data - base
            if 0 <= key < end:
                if slots[key] is not None:
                    slots[key] = None
                    free.append(key)
                elif key not in free:  # dropped by a drop that an interrupt cut (a rare path)
                    free.append(key)

    def free_all(self, keys: list[int]) -> None:
        """Frees keys whose slots are emptied already (a batch empties each as its call
        starts)."""
        self.free.extend(keys)

    def timers(self) -> list[Any]:
        """The armed timers (a copy)."""
        return [timer for timer in self.slots if timer is not None]

    def held(self) -> int:
        """How many timers the table holds (for tests and leak checks)."""
        return len(self.slots) - len(self.free)

    def shrink(self) -> None:
        """Gives the keys up when none is held and there are more than :data:`KEEP`: a burst of
        a million timers then leaves no table behind (about 50 MB)."""
        if len(self.slots) > self.KEEP and len(self.free) == len(self.slots):  # the size first
            # Both in one step (two assignments made by C): an interrupt between two stores left
            # keys free beyond an emptied table.
            any(map(setattr, (self, self), ("slots", "free"), ([], [])))
