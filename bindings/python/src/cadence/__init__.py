"""Cadence: Foundation- and Combine-style timers on a libuv event loop, for Python.

A thin ctypes binding over the C API (``include/cadence.h``)::

    import cadence

    with cadence.Loop() as loop:
        timer = loop.publish(0.1).autoconnect()
        with timer.subscribe(lambda tick: print(tick.fire_date)):
            loop.run(0.55)

Times are seconds as floats; fire dates are seconds since the Unix epoch. See :class:`Loop`,
:class:`TimerPublisher`, :class:`Subscription`, :class:`Countdown`, :class:`Poller` and
:mod:`cadence.errors`. ``Loop.virtual()`` makes a loop on a virtual clock, for exact tests; the
pytest plugin :mod:`cadence.pytest_plugin` gives tests one as the ``virtual_loop`` fixture.

asyncio: with the loop attached to the running asyncio loop (which then runs it on its own
thread, with no other), or on a thread of its own, ``async for fire_date in timer`` iterates a
timer publisher, ``await countdown`` waits for a countdown, and a poller's operation may be a
coroutine function::

    async def main() -> None:
        with cadence.Loop() as loop, loop.attach_asyncio():
            async for fire_date in loop.publish(0.05).autoconnect():
                print(fire_date)

The shared library is found through the environment variable ``CADENCE_LIBRARY``, then a copy
bundled in this package, then ``build/libcadence.so`` of a source checkout, then the system;
:data:`library_path` and :data:`library_version` say what was loaded. :mod:`cadence.testing`
(``Timeline``, ``milliseconds``) comes with ``import cadence``; it does not need pytest.
"""

from . import _lib, testing
from ._async import AsyncStream, Attachment
from .cancellable import Cancellable, Connection, ScheduledTimer, Subscription
from .countdown import Countdown
from .errors import (
    AlreadyCancelled,
    BadHandle,
    CadenceError,
    EventLoopError,
    InvalidArgument,
    LoopBusy,
    NotSupported,
    OutOfMemory,
    UnknownMode,
)
from .loop import Loop
from .memory import memory_trims, set_trim_memory, trims_memory
from .poller import Poll, Poller
from .publisher import AutoconnectTimerPublisher, MissedTickPolicy, TimerPublisher
from .tick import Tick

__all__ = ["AlreadyCancelled", "AsyncStream", "Attachment", "AutoconnectTimerPublisher"]
__all__ += ["BadHandle", "CadenceError", "Cancellable", "Connection", "Countdown"]
__all__ += ["EventLoopError", "InvalidArgument", "Loop", "LoopBusy", "MissedTickPolicy"]
__all__ += ["NotSupported", "OutOfMemory", "Poll", "Poller", "ScheduledTimer", "Subscription"]
__all__ += ["Tick", "TimerPublisher", "UnknownMode", "__version__", "library_path"]
__all__ += ["library_version", "memory_trims", "set_trim_memory", "testing", "trims_memory"]

#: The version of this binding.
__version__ = "0.4.0"

#: The path of the shared library that was loaded, such as ``"/usr/lib/libcadence.so"``.
library_path: str = _lib.path

#: The loaded library's version, ``"major.minor.patch"`` (from ``cadence_version_string``).
#: Like :data:`library_path` it is a plain ``str``, fixed at import.
library_version: str = _lib.version_string()
