"""The shared lifetime of objects that belong to a loop: closed with it, closed on their own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import BadHandle

if TYPE_CHECKING:
    from ._registry import LoopState
    from .loop import Loop


class Owned:
    """Something made from a :class:`~cadence.Loop`: a publisher or a cancellable.

    It is closed when its own ``close()`` runs or when its loop closes; after that every
    operation raises :class:`~cadence.errors.BadHandle` (a :class:`ValueError`) instead of reaching
    C, and ``close()`` again does nothing. Subclasses release the C handle in :meth:`_release`,
    once, on ``close()`` or when the object is collected, and say in :meth:`_released` whether
    that happened.
    """

    # Slots: a loop may own hundreds of thousands of these; subclasses that add state keep a dict.
    __slots__ = ("__weakref__", "_loop", "_state")

    def __init__(self, loop: Loop, state: LoopState) -> None:
        self._loop = loop
        self._state = state

    def _released(self) -> bool:
        """Whether the C handle has been released."""
        raise NotImplementedError

    def _release(self) -> None:
        """Releases the C handle unless it was released already."""
        raise NotImplementedError

    @property
    def loop(self) -> Loop:
        """The loop this object belongs to."""
        return self._loop

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called on this object or on its loop."""
        return self._state.closed or self._released()

    def close(self) -> None:
        """Releases the C handle. Closing twice, or after the loop closed, does nothing."""
        self._release()

    def _require_open(self, what: str) -> LoopState:
        if self._state.closed:
            raise BadHandle(
                context=what,
                detail=f"loop must be open, got a {type(self).__name__} whose loop is closed",
            )
        if self._released():
            raise BadHandle(
                context=what, detail=f"{type(self).__name__} must be open, got a closed one"
            )
        return self._state

    def _state_word(self) -> str:
        if self._state.closed:
            return "closed (loop closed)"
        return "closed" if self._released() else ""
