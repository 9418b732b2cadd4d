"""Python-level argument checks: wrong *types* fail here with TypeError, before reaching C.

Bad *values* (NaN, infinities, negatives, zero intervals, empty or malformed mode names) are left
to the C layer, which reports them as :class:`~cadence.errors.InvalidArgument`; the only values
caught here are those that C could not even be told about (an integer too large for a double, a
mode name with a NUL character or characters that are not UTF-8).
"""

from __future__ import annotations

import numbers
from typing import Callable

from .errors import InvalidArgument


def seconds(value: object, where: str, name: str) -> float:
    """``value`` as a float number of seconds; TypeError for anything that is not a real number
    (``bool`` included, which is an int but never a duration)."""
    if type(value) is float:  # the common case, without the ABC check below
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} must be a number of seconds, not {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        raise InvalidArgument(
            context=where, detail=f"{name} must be a number a double can hold, got {value!r}"
        ) from None


def mode(value: object, where: str) -> bytes:
    """A run loop mode name as UTF-8 bytes for C; TypeError for anything but :class:`str`."""
    if type(value) is str and value == "default":  # the common case, already checked
        return b"default"
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


def callback(value: object, where: str, name: str = "callback") -> Callable[..., object]:
    """``value`` if it is callable; TypeError otherwise."""
    if not callable(value):
        raise TypeError(f"{where}: {name} must be callable, not {type(value).__name__}")
    return value


def flag(value: object, where: str, name: str) -> bool:
    """``value`` if it is a :class:`bool`; TypeError otherwise (no truthiness guesses)."""
    if not isinstance(value, bool):
        raise TypeError(f"{where}: {name} must be a bool, not {type(value).__name__}")
    return value
