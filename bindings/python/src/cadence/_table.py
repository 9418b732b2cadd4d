"""The callback table: the one place that holds, for C, the userdata of every registration.

The userdata of every scheduled timer, subscription, countdown and poller (of every loop) is a
key (an even index) into one list, which holds its Python object (the callback itself for a
plain timer or subscription) until C says the userdata is dead: a call with ``final`` set, a
countdown's finished call, a cancel, which C hands the key back to (``cadence_cancel_steal``,
for every kind), or the loop's release function (given up, ended by its publisher, or the loop
destroyed); the key is then free for the next registration. A list and its free keys cost less
than a ctypes call to ``Py_IncRef``/``Py_DecRef`` each (python-libusb1 keeps its callbacks in a
table the same way).

Only :func:`hold`, :func:`drop` and :func:`steal` (and their forms for many keys at once, for
the hot paths) change the table (and each key's owner beside it, as :data:`OWNER` says); the C
callbacks read :data:`slots` directly to call a registration that goes on (a repeating timer's
tick, a fire in a batch). Threads: any; each step is one list operation, atomic under the GIL,
and growth takes a lock.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

#: The userdata of each live registration at its key, None at the free keys (:data:`ENDED` at
#: an owned key whose registration ended), and whether the key is owned right after it
#: (:data:`OWNER`). Read it; change it only through this module's functions.
#: Key 0 is never handed out: as a userdata it is NULL, which C never hands back
#: (``cadence_cancel_steal``), so its registration's cancel would take the release path.
slots: list[Any] = [None, 0]
#: Where a key's owner mark is, from the key: 1 while a :class:`~cadence.ScheduledTimer` holds
#: the key (its ``_key``; set by the scheduling call before C can end the registration), else 0.
#: An owned key is not freed when its registration ends, only marked :data:`ENDED`, and is freed
#: when its timer is collected (:func:`disown`): so while a timer lives its key is its own, and
#: its slot says without C whether it is pending (a callback) or not (``_cancels``). Beside the
#: slot, in the same cache line; 0 and 1 are shared objects, so the mark costs no reference count
#: of a cold object on any path.
OWNER = 1
#: The slot of an owned key whose registration ended (fired, cancelled, released): its callback
#: is let go, its key waits for its timer.
ENDED = object()
#: The slot of an owned key whose timer's cancel Python recorded (``_cancels``): its callback is
#: let go at once, and the key waits for its timer as an :data:`ENDED` one does, also once the
#: cancel is handed to C (no pass over the keys then: the slot says "ended" already).
LET_GO = object()
_free: list[int] = []  # popped and appended under the GIL: each is atomic
_pop = _free.pop
_growing = threading.Lock()
#: Added to a key, the userdata of a registration whose callback is called with no argument
#: (no :class:`~cadence.Tick` to make: asyncio's one-shots); :func:`steal` takes such a key
#: back as it is.
UNTIMED = 1 << 48
#: What frees keys before the table grows: ``_cancels`` puts its flush here, so that the keys
#: that recorded cancels hold (never more than the table has) come back first.
BEFORE_GROWTH: list[Callable[[], None]] = [lambda: None]


def hold(userdata: object) -> int:
    """Holds ``userdata`` for C until :func:`drop` or :func:`steal`; returns its key, C's
    userdata (add :data:`UNTIMED` for a callback that takes no argument)."""
    try:
        key = _pop()
    except IndexError:
        key = _grow()
    slots[key] = userdata
    return key


def _grow() -> int:
    """A free key once no key is free: first those of the recorded cancels (handed to C then,
    :data:`BEFORE_GROWTH`), else 64 new ones."""
    BEFORE_GROWTH[0]()
    with _growing:  # by 64 keys: few spare keys wait as int objects (32 bytes each)
        try:
            return _pop()
        except IndexError:
            key = len(slots)  # even
            slots.extend([None, 0] * 64)
            _free.extend(range(key + 126, key, -2))
    return key


def hold_all(userdata: list[Any], flag: int = 0) -> list[int]:
    """:func:`hold` of each item, in one call (a loop turn's starts); returns their keys, each
    with ``flag`` added (:data:`UNTIMED` for callbacks that take no argument)."""
    keys: list[int] = []
    add, pop, table = keys.append, _pop, slots  # locals: this loop is a hot path
    for item in userdata:
        try:
            key = pop()
        except IndexError:
            key = hold(item)
        else:
            table[key] = item
        add(key + flag)
    return keys


def drop(key: int) -> None:
    """Gives up what :func:`hold` holds at ``key``, as :func:`hold` returned it (without
    :data:`UNTIMED`: every cancel pays for this call, so it tests nothing): C said it is dead (or
    never took it). An owned key is kept, :data:`ENDED`."""
    if slots[key + 1]:  # OWNER
        slots[key] = ENDED
    else:
        slots[key] = None
        _free.append(key)


def drop_all(keys: list[int]) -> None:
    """:func:`drop` of each key, in one call; the keys without :data:`UNTIMED` (a batch of
    fires frees the keys of its calls at its end)."""
    table, ended, free = slots, ENDED, _free.append
    for key in keys:
        if table[key + 1]:  # OWNER
            table[key] = ended
        else:
            table[key] = None
            free(key)


#: Frees one key whose slot is empty already (:func:`free_all` of one, without its call).
free_one = _free.append


def free_all(keys: list[int]) -> None:
    """Frees keys whose slots are empty already (a batch of fires empties each as its call
    starts)."""
    _free.extend(keys)


def disown(key: int) -> None:
    """Its timer no longer holds ``key`` (it was collected): frees the key if its registration
    ended, else leaves that end to free it."""
    slots[key + 1] = 0  # first: an end on another thread from here on frees the key itself
    if (held := slots[key]) is ENDED or held is LET_GO:  # LET_GO: its cancel is in C (settled)
        slots[key] = None
        _free.append(key)


def steal(key: int) -> Any:
    """:func:`drop`, returning what was held, for a key as C passes it (with or without
    :data:`UNTIMED`): for the last call of a registration, made after its key is free again (a
    callback that schedules may reuse it)."""
    if key >= UNTIMED:  # cheaper than a mask: 2**48 is a two-digit int
        key -= UNTIMED
    userdata = slots[key]
    drop(key)
    return userdata


def held() -> int:
    """How many userdata the table holds now (for tests and leak checks); an :data:`ENDED` or
    :data:`LET_GO` key holds none (its key is its timer's until the timer is collected)."""
    values = slots[0::2]
    return len(values) - 1 - len(_free) - values.count(ENDED) - values.count(LET_GO)
