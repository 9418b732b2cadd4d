"""Exceptions raised by Cadence, one class per C error code.

Every error from the C layer becomes a :class:`CadenceError` whose ``code`` is the negative
``CADENCE_E*`` value, with ``name`` and ``message`` from ``cadence_err_name`` and
``cadence_strerror``, and whose text says what was wrong: the Python call, then the argument, the
rule and the value, as the C layer found them (``cadence_last_error_message``, with the Python
call's name in place of the C function's)::

    Loop.publish: tolerance must be >= 0 and finite, got -1.0

A closed object or loop is found by the C layer too. The few errors that Python finds itself (a
run already under way, a wrong type) read the same way. As in pyzmq, each subclass also inherits
the built-in exception that Python code would expect for the same situation, so
``except ValueError`` keeps working:

- :class:`InvalidArgument` (``EINVAL``), a :class:`ValueError`: NaN, infinities, a negative delay
  or tolerance, a zero interval, an empty or malformed mode name, running in ``"common"``.
- :class:`UnknownMode` (``ENOENT``), a :class:`LookupError`: a mode the loop does not know.
- :class:`BadHandle` (``EBADF``), a :class:`ValueError`: use of a closed object, or of one whose
  loop was closed (as :mod:`io` raises ValueError for a closed file).
- :class:`LoopBusy` (``EBUSY``), a :class:`RuntimeError`: running a loop that is running (for
  example from one of its own callbacks, or while it has a thread of its own), closing it then,
  starting a second thread, or ``stop_thread`` from the loop's own thread.
- :class:`NotSupported` (``ENOTSUP``), a :class:`TypeError`: an operation that does not apply to
  this kind of object (``connect()`` on an autoconnect publisher, ``jump_clock`` on a real
  loop).
- :class:`AlreadyCancelled` (``EALREADY``): ``Poller.set_active`` on a cancelled poller,
  ``ScheduledTimer.reset`` on a timer that was cancelled or is a one-shot that has fired. Never
  raised by ``cancel()`` or ``finish()``, which return False instead.
- :class:`OutOfMemory` (``ENOMEM``), a :class:`MemoryError`.
- :class:`EventLoopError` (``EIO``), an :class:`OSError`: libuv failed.

:class:`UnknownMode` is a :class:`LookupError` rather than a :class:`KeyError` because
``str(KeyError)`` quotes its message, and rather than a :class:`ValueError` because the name is
well formed: it is just not registered (``loop.add_mode`` fixes it).

Arguments of the wrong Python type (a string interval, a non-callable callback, ``None``) raise a
plain :class:`TypeError` before anything reaches C.
"""

from __future__ import annotations

import errno as _errno
from typing import Any, ClassVar

from . import _lib

# The C API's codes (include/cadence.h).
ENOENT, EIO, EBADF, ENOMEM, EBUSY, EINVAL, ENOTSUP, EALREADY = -2, -5, -9, -12, -16, -22, -95, -114
#: Each subclass by the code it stands for (a class statement's ``code=`` adds it).
_BY_CODE: dict[int, type[CadenceError]] = {}


class CadenceError(Exception):
    """An error reported by Cadence.

    Attributes:
        code: the negative ``CADENCE_E*`` code, as the C API returns it.
        context: the call that failed, such as ``"Loop.publish"``.
        detail: what was wrong with it: the argument, the rule and the value, such as
            ``"interval must be > 0 and finite, got nan"``; for an error from C, the message of
            ``cadence_last_error_message`` without the C function's name. Empty when not known.

    ``str()`` gives the call and the detail,
    ``Loop.publish: interval must be > 0 and finite, got nan`` (the code's :attr:`message` stands
    in for a missing detail).
    """

    #: The code of this class; ``None`` on the base class, which takes any code.
    default_code: ClassVar[int | None] = None

    def __init_subclass__(cls, code: int = 0, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.default_code = code
        _BY_CODE[code] = cls

    def __init__(self, code: int | None = None, context: str = "", detail: str = "") -> None:
        if code is None:
            if self.default_code is None:
                raise TypeError("CadenceError() needs an error code")
            code = self.default_code
        if isinstance(code, bool) or not isinstance(code, int):
            raise TypeError(f"CadenceError: code must be an int, not {type(code).__name__}")
        super().__init__(code, context, detail)
        self.code, self.context, self.detail = code, context, detail

    @property
    def name(self) -> str:
        """The symbolic name, such as ``"EINVAL"`` (``"UNKNOWN"`` for a code Cadence lacks)."""
        return _lib.decode(_lib.lib.cadence_err_name(_as_c_int(self.code)))

    @property
    def message(self) -> str:
        """A short English message, from ``cadence_strerror``."""
        return _lib.decode(_lib.lib.cadence_strerror(_as_c_int(self.code)))

    def __str__(self) -> str:
        detail = self.detail or self.message
        return f"{self.context}: {detail}" if self.context else detail


class InvalidArgument(CadenceError, ValueError, code=EINVAL):
    """An argument value is out of range: NaN, an infinity, a negative delay or tolerance, a zero
    interval, or an empty, malformed or misplaced mode name (``EINVAL``)."""


class UnknownMode(CadenceError, LookupError, code=ENOENT):
    """The run loop mode is not registered on this loop; add it first (``ENOENT``)."""


class BadHandle(CadenceError, ValueError, code=EBADF):
    """The object was closed, or belongs to a closed loop (``EBADF``)."""


class LoopBusy(CadenceError, RuntimeError, code=EBUSY):
    """The loop is running: it cannot be run again (for example from one of its own callbacks,
    or while it has a thread of its own) nor closed until that run returns or the thread is
    stopped; a loop's thread cannot be stopped from that thread (``EBUSY``)."""


class NotSupported(CadenceError, TypeError, code=ENOTSUP):
    """The operation does not apply to this kind of object (``ENOTSUP``)."""


class AlreadyCancelled(CadenceError, code=EALREADY):
    """Already cancelled (``EALREADY``): raised by ``Poller.set_active`` on a cancelled poller and
    by ``ScheduledTimer.reset`` on a cancelled timer or a one-shot that has fired.
    A second ``cancel()``, or finishing a poll that is not running, returns False instead."""


class OutOfMemory(CadenceError, MemoryError, code=ENOMEM):
    """Memory could not be had (``ENOMEM``)."""


def _as_c_int(code: int) -> int:
    """``code`` for a C ``int`` argument: one too large for it is no Cadence code, so it is
    passed as one that is none either (ctypes would raise for it, and ``str()`` with it)."""
    return code if -(2**31) <= code < 2**31 else -(2**31)


class EventLoopError(CadenceError, OSError, code=EIO):
    """libuv failed to set up or run the loop (``EIO``). ``errno`` is :data:`errno.EIO`."""

    def __init__(self, code: int | None = None, context: str = "", detail: str = "") -> None:
        super().__init__(code, context, detail)
        self.errno, self.strerror = _errno.EIO, self.message


#: The detail of a LoopBusy that Python finds itself (a run, a thread, or an asyncio attachment).
RUNNING_OR_THREAD = (
    "loop must not be running, attached to asyncio or on a thread of its own, got one that is "
    "(called from one of its callbacks, from another thread, after start_thread or attach_asyncio?)"
)
#: How a BadHandle ends for a handle whose loop the binding knows is closed.
LOOP_CLOSED = "(its loop was closed, which closes every object made from it)"
#: A closed loop's own calls, in the engine's words (Swift's ``CadenceError.loopClosed``).
LOOP_IS_CLOSED = "loop must be open, got a closed loop"


def last_detail() -> str:
    """What the calling thread's last failed C call found wrong (``cadence_last_error_message``),
    without the C function's name: ``"tolerance must be >= 0 and finite, got -1.0"``."""
    message = _lib.decode(_lib.lib.cadence_last_error_message())
    function, colon, detail = message.partition(": ")
    return detail if colon and function.startswith("cadence_") else message


def error_for(code: int, context: str = "", loop: Any = None) -> CadenceError:
    """The exception for a negative C return code, made right after the C call that returned it
    (on the same thread, with no Cadence call in between): the subclass for that code, or a plain
    :class:`CadenceError` for a code this binding does not know, with ``context`` (the Python
    call) and the C layer's :func:`last_detail`. ``loop`` is the :class:`~cadence.Loop` of the
    handle the call was given, if any: when it is closed, a BadHandle says so, in place of the
    C layer's list of possible causes."""
    detail = last_detail()
    if code == EBADF and loop is not None and loop.closed:
        head = detail.partition(" (")[0]
        own = head.startswith("loop must be a live loop handle")  # a call on the loop itself
        detail = LOOP_IS_CLOSED if own else f"{head} {LOOP_CLOSED}"
    return _BY_CODE.get(code, CadenceError)(code, context, detail)


def check(code: int, context: str, loop: Any = None) -> None:
    """Raises :func:`error_for` ``(code, context, loop)`` if ``code`` is negative."""
    if code < 0:
        raise error_for(code, context, loop)
