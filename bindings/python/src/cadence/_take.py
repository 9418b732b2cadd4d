"""Taking the records that a flush hands to C (recorded cancels, a turn's starts) whole.

A flush empties a list or an array that other code appends to. Copying it and then emptying it
are two steps, and Python may run another thread, or a signal handler that raises (Ctrl-C),
between two bytecodes (3.9 and 3.10 after nearly any of them; 3.11 and later at calls,
function entries and backward jumps): another thread's flush could copy the same records, and
the second emptying would then delete records that neither copied. :func:`take` makes both
steps C calls that C itself makes, one after the other (``any`` driving a ``map`` of
``operator.setitem`` over the two slice assignments), so no bytecode runs between them: no
switch, no signal handler. (The collector can: a finalizer that records a cancel between the
two steps loses it, as it would lose it to any flush in the same instant; on 3.12 and later
the collector too waits for a bytecode.) About 0.3 us a flush.

The records taken are then the caller's alone, in a local variable; whatever interrupts the
caller before C has them is caught there (``except BaseException``), where what C has not taken
goes back to the source. An exception raised in that handler itself (a second signal) is the
one case left.
"""

from __future__ import annotations

from array import array
from operator import setitem
from typing import Any

_BOTH = (slice(None), slice(None))
_EMPTY = {code: array(code) for code in "LQq"}


def take(source: list[Any] | array[int], into: list[Any] | array[int]) -> None:
    """Moves every record of ``source`` into ``into``, an empty list, or an empty array of the
    same type code, in one step (see the module's notes)."""
    empty = () if isinstance(source, list) else _EMPTY[source.typecode]
    any(map(setitem, (into, source), _BOTH, (source, empty)))
