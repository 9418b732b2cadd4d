"""The checks of argument types and values that Python makes itself, before a call into C:
each raises ``TypeError`` for a value of the wrong type and :class:`~cadence.InvalidArgument`
for one that C could not be given, naming the call (``where``), the argument and the value."""

from __future__ import annotations

import math
import numbers
from typing import Any

from .errors import InvalidArgument


def seconds(value: object, where: str, name: str) -> float:
    """``value`` as a float of seconds: TypeError for anything but a real number (``bool``
    included); values are C's to judge, except those a double cannot hold."""
    if type(value) is float:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} must be a number of seconds, not {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        raise InvalidArgument(
            context=where, detail=f"{name} must be a number a double can hold, got {value!r}"
        ) from None


def finite_seconds(value: object, where: str, name: str, *, positive: bool = False) -> float:
    """:func:`seconds`, and >= 0 (> 0 with ``positive``) and finite, else InvalidArgument: for
    values that Python judges itself."""
    number = seconds(value, where, name)
    if not (number > 0 if positive else number >= 0) or number == math.inf:
        rule = "> 0" if positive else ">= 0"
        raise InvalidArgument(
            context=where, detail=f"{name} must be {rule} and finite, got {value!r}"
        )
    return number


def mode(value: object, where: str) -> bytes:
    """A mode name as UTF-8 for C: TypeError for anything but :class:`str`."""
    if not isinstance(value, str):
        raise TypeError(f"{where}: mode must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise InvalidArgument(context=where, detail=f"mode must not contain NUL, got {value!r}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(
            context=where, detail=f"mode must be encodable as UTF-8, got {value!r}"
        ) from None


def function(value: object, where: str, name: str = "callback") -> Any:
    """``value`` if it is callable; TypeError otherwise."""
    if not callable(value):
        raise TypeError(f"{where}: {name} must be callable, not {type(value).__name__}")
    return value


def flag(value: object, where: str, name: str) -> bool:
    """``value`` if it is a :class:`bool`; TypeError otherwise."""
    if not isinstance(value, bool):
        raise TypeError(f"{where}: {name} must be a bool, not {type(value).__name__}")
    return value
