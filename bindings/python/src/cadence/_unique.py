"""One object per handle: what copying and pickling do to every object that owns a C handle (a
loop, a publisher, a subscription, a timer, a countdown, a poller)."""

from __future__ import annotations

from typing import NoReturn, TypeVar

_U = TypeVar("_U", bound="Unique")


class Unique:
    """:func:`copy.copy` and :func:`copy.deepcopy` return the object itself: a copy would own
    the same C handle and give it up when collected, closing it under the original. Pickling
    raises TypeError: a handle names something of this process only."""

    __slots__ = ()

    def __copy__(self: _U, memo: object = None) -> _U:
        """The object itself (``memo``: :func:`copy.deepcopy`'s)."""
        return self

    __deepcopy__ = __copy__

    def __reduce_ex__(self, protocol: object) -> NoReturn:
        """Refuses: a handle names something of this process only."""
        raise TypeError(f"cannot pickle a {type(self).__name__}: it is a handle of this process")
