"""The shared lifetime of objects that belong to a loop: closed with it, closed on their own."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Callable

from .errors import BadHandle

if TYPE_CHECKING:
    from ._registry import LoopState
    from .loop import Loop


class Release:
    """Runs a release function once: on ``close()``, or from the owner's ``__del__``.

    What :class:`weakref.finalize` does for the owners made by the thousand (timers, subscriptions),
    at a fraction of its cost: no registry, no weak reference. Two threads calling at once may
    both call the function; the C layer answers a second release of a handle with ``EBADF``, which
    the release functions ignore.
    """

    __slots__ = ("_args", "_function")

    def __init__(self, function: Callable[..., object], *args: object) -> None:
        self._function: Callable[..., object] | None = function
        self._args = args

    @property
    def alive(self) -> bool:
        """Whether the function has yet to run."""
        return self._function is not None

    def __call__(self) -> None:
        function, self._function = self._function, None
        if function is not None:
            function(*self._args)


class Owned:
    """Something made from a :class:`~cadence.Loop`: a publisher or a cancellable.

    It is closed when its own ``close()`` runs or when its loop closes; after that every
    operation raises :class:`~cadence.errors.BadHandle` (a :class:`ValueError`) instead of reaching
    C, and ``close()`` again does nothing. Subclasses set ``_finalizer`` to release the C handle;
    it runs once, on ``close()`` or when the object is collected.
    """

    # Slots: a loop may own hundreds of thousands of these; subclasses that add state keep a dict.
    __slots__ = ("__weakref__", "_finalizer", "_loop", "_state")

    _finalizer: Release | weakref.finalize[..., Any]

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
