"""The selector of :class:`cadence.asyncio.EventLoop`: the platform's default selector, whose
``select`` is the event loop's (which runs a Cadence pass when the loop's descriptor is readable,
or moves a virtual clock)."""

from __future__ import annotations

import selectors
from collections.abc import Callable
from typing import Any


class Selector(selectors.BaseSelector):
    """asyncio's selector (the platform's default), whose ``select`` is the event loop's."""

    def __init__(self, select: Callable[[selectors.BaseSelector, float | None], list[Any]]) -> None:
        self._inner, self._select = selectors.DefaultSelector(), select

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._inner.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.modify(fileobj, events, data)

    def select(self, timeout: float | None = None) -> list[Any]:
        return self._select(self._inner, timeout)

    def get_map(self) -> Any:
        return self._inner.get_map()

    def close(self) -> None:
        self._inner.close()
