"""The shared lifetime of objects that belong to a loop: closed with it, closed on their own."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from .errors import BadHandle

if TYPE_CHECKING:
    from ._registry import LoopState
    from .loop import Loop


class Owned:
    """Something made from a :class:`~cadence.Loop`: a publisher or a cancellable.

    It is closed when its own ``close()`` runs or when its loop closes; after that every
    operation raises :class:`~cadence.errors.BadHandle` (a :class:`ValueError`) instead of reaching
    C, and ``close()`` again does nothing. Subclasses set ``_finalizer`` to release the C handle;
    it runs once, on ``close()`` or when the object is collected.
    """

    _finalizer: weakref.finalize[..., Any]

    def __init__(self, loop: Loop, state: LoopState) -> None:
        self._loop = loop
        self._state = state

    @property
    def loop(self) -> Loop:
        """The loop this object belongs to."""
        return self._loop

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called on this object or on its loop."""
        return self._state.closed or not self._finalizer.alive

    def close(self) -> None:
        """Releases the C handle. Closing twice, or after the loop closed, does nothing."""
        self._finalizer()

    def _require_open(self, what: str) -> LoopState:
        if self._state.closed:
            raise BadHandle(context=f"{what} on a {type(self).__name__} whose loop is closed")
        if not self._finalizer.alive:
            raise BadHandle(context=f"{what} on a closed {type(self).__name__}")
        return self._state

    def _state_word(self) -> str:
        if self._state.closed:
            return "closed (loop closed)"
        return "closed" if not self._finalizer.alive else ""
