"""Loads the Cadence shared library and declares every C prototype, once.

Nothing outside this module touches :mod:`ctypes` loading. The library is looked for, in order:

1. the path in the environment variable ``CADENCE_LIBRARY`` (when it is set, nothing else is
   tried, so a wrong path fails loudly instead of silently loading another copy);
2. a copy bundled inside this package directory (what ``pip install`` ships; for an editable
   install, the site-packages folder that ``__path__`` lists beside the source);
3. the build tree of a source checkout, ``<repo>/build/libcadence.so``;
4. the system, through :func:`ctypes.util.find_library`.

Right after loading, ``cadence_version()`` is called and its major version compared with the one
this binding was written for; a mismatch or a library that cannot be found raises :class:`OSError`
saying what was tried and what to do.
"""

from __future__ import annotations

import ctypes
import os
import sys
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: The major version of the C API this binding speaks (``CADENCE_VERSION_MAJOR``).
API_MAJOR = 0

ENV_VAR = "CADENCE_LIBRARY"

_FILE_NAME = {"darwin": "libcadence.dylib", "win32": "cadence.dll"}.get(
    sys.platform, "libcadence.so"
)


# ---- Types from include/cadence.h ----

# A handle (cadence_loop, cadence_publisher, cadence_cancellable) is ``struct { uint64_t id; }``
# passed by value. Every C ABI this binding runs on (x86-64 System V, AArch64 AAPCS64) passes a
# struct of one 64-bit integer exactly as that integer, so handles are ``c_uint64`` and Python ints.
Handle = ctypes.c_uint64
_u64, _int, _d = ctypes.c_uint64, ctypes.c_int, ctypes.c_double
_char_p, _key = ctypes.c_char_p, ctypes.c_size_t
_out, _double_out, _int_out = ctypes.POINTER(Handle), ctypes.POINTER(_d), ctypes.POINTER(_int)
#: The type code of an ``array.array`` of 64-bit words that C reads as ``uint64_t`` (handles,
#: userdata): ``L`` (``unsigned long``) where it is 64 bits (Linux, macOS), since CPython turns an
#: int past 30 bits into an ``unsigned long`` in a loop over its digits but into an ``unsigned
#: long long`` (``Q``) through its generic byte-array conversion: about 500 instructions more an
#: item, which was a fifth of a recorded cancel.
WORD = "L" if array("L").itemsize == 8 else "Q"


class CCountdownEvent(ctypes.Structure):
    """``cadence_countdown_event``: one call of a countdown's callback, valid only during it."""

    _fields_ = [("remaining", ctypes.c_int64), ("finished", _int), ("date", _d), ("source", Handle)]


class CPoll(ctypes.Structure):
    """``cadence_poll``: one poll, as passed to a poller's callback, valid only during it."""

    _fields_ = [("number", _u64), ("date", _d), ("source", Handle)]


# The userdata of every registration is the key under which the binding holds its Python object
# until C says it is dead (``cadence._table.hold``), so the callbacks take it as an integer.
FIRE_FN = ctypes.CFUNCTYPE(None, _key, _d, _u64, _int)
RELEASE_FN = ctypes.CFUNCTYPE(None, _key)
COUNTDOWN_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(CCountdownEvent), _key)
POLL_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(CPoll), _key)
#: ``cadence_fire_batch_fn``: the address of the records (see ``cadence._batch``), their count,
#: the address of the count of calls started.
FIRE_BATCH_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, _key, ctypes.c_void_p)
#: The loop's callback types, in the order of ``LoopState``'s callbacks.
CALLBACK_TYPES = (FIRE_FN, RELEASE_FN, COUNTDOWN_FN, POLL_FN, FIRE_BATCH_FN)

_H, _M, _D = [Handle], [Handle, _char_p], [Handle, _double_out]
# A cadence_tick_fn: the binding passes NULL (None), for the loop's fire function.
_fn = ctypes.c_void_p
# An address, and the 64-bit words of the hot calls of cadence.asyncio and of the batched
# cancels (a handle, a userdata, a count), which the binding alone makes, always as ints: passed
# as ``c_void_p``, in the same register as ``uint64_t`` and ``size_t`` on x86-64 and AArch64,
# whose conversion of an int skips the generic check of ``c_uint64`` and ``c_size_t`` (an
# ``isinstance`` against a ctypes type and a table lookup per argument): about half of a
# six-argument call's cost.
_vp = ctypes.c_void_p

# Every function of include/cadence.h (without its ``cadence_`` prefix), by prototype. A name
# marked ``*`` is called through ctypes.PyDLL, which keeps the GIL (cheaper): a call that never
# waits for another thread. Every other call may wait for a callback on the loop's thread, which
# needs the GIL. Without a GIL (see GIL), every call goes through ctypes.CDLL.
_BY_PROTOTYPE: list[tuple[Any, list[Any], str]] = [
    (ctypes.c_uint, [], "version"),
    (_char_p, [], "version_string *last_error_message"),
    (_char_p, [_int], "strerror err_name"),
    (_int, [_out], "loop_create loop_create_virtual"),
    (_int, _H, "loop_close loop_destroy *loop_stop loop_stop_thread publisher_release"),
    (_int, _H, "timer_unref timer_ref"),
    (_int, _H, "cancel cancellable_detach cancellable_release cancellable_release_stopping"),
    (ctypes.c_ssize_t, _H, "cancel_steal"),
    (_int, _M, "loop_run_until_idle loop_add_mode loop_add_common_mode *loop_run_pass"),
    (_int, _M, "loop_start_thread"),
    (_int, _D, "*loop_now loop_timeout *timer_fire_date *timer_interval *timer_tolerance"),
    (_int, _D, "poller_interval poller_tolerance countdown_deadline countdown_tick"),
    (_int, _D, "publisher_interval publisher_tolerance"),
    (_int, [Handle, _char_p, _key], "publisher_mode"),
    (_int, [Handle, ctypes.POINTER(_u64)], "*loop_wakeups *loop_armed_timers"),
    (_int, [_int], "set_trim_memory"),
    (_int, [_int_out], "trim_memory"),
    (_int, [ctypes.POINTER(_u64)], "memory_trims"),
    (_int, [Handle, _int_out], "loop_fd *timer_has_ref *is_cancelled poller_active"),
    (_int, [Handle, _int_out], "loop_has_thread publisher_missed_ticks"),
    (_int, [Handle, _d], "loop_jump_clock loop_advance_clock timer_reset"),
    (_int, [Handle, _int], "publisher_set_missed_ticks poller_set_active"),
    (_int, [Handle, _out], "publisher_autoconnect publisher_connect"),
    (_int, [Handle, _u64], "poller_finish"),
    (_int, [Handle, ctypes.c_uint32], "loop_age_timer_slots"),
    (_int, [Handle, _char_p, _d], "loop_run"),
    (_int, [Handle, _char_p, _int_out], "*loop_alive"),
    (_int, [Handle, FIRE_FN, RELEASE_FN], "loop_set_callbacks"),
    (_int, [Handle, FIRE_BATCH_FN], "loop_set_fire_batch"),
    # The records and the count as addresses (an array's, once per event loop: _batch.Collected).
    (_int, [_vp, _char_p, _vp, _vp, _vp, _vp], "*loop_run_pass_collect"),  # as loop_run_pass
    (_int, [Handle, _d, _d, _char_p, _out], "publisher_create timer_publish"),
    (_int, [Handle, _fn, _key, _out], "publisher_subscribe"),
    (_int, [Handle, _d, _d, _char_p, _fn, _key, _out], "*loop_schedule"),
    (ctypes.c_int64, [Handle, _d, _key], "*loop_schedule_default"),  # the handle, or an error
    (_int, [Handle, _d, _d, _key, _vp], "*loop_schedule_transient"),  # out: an array's word
    # Arrays as addresses (array.array's buffer_info()): userdata and handles are 64-bit words.
    (_int, [_vp, _vp, _vp, _vp, _vp, _vp], "*loop_schedule_transient_batch"),
    (_int, [_vp, _vp, _vp], "cancel_steal_batch"),
    (_int, [Handle, _d, _d, _d, _int, _char_p, _fn, _key, _out], "*loop_schedule_repeating"),
    (_int, [Handle, _d, _d, COUNTDOWN_FN, _key, _out], "countdown_start"),
    (_int, [Handle, _d, _d, POLL_FN, _key, _out], "poller_start"),
]
_NAMES = [
    (f"cadence_{name.lstrip('*')}", p[:2], name[0] == "*")
    for p in _BY_PROTOTYPE
    for name in p[2].split()
]
#: Every function of include/cadence.h: name -> (restype, argtypes).
PROTOTYPES = {name: prototype for name, prototype, _ in _NAMES}
#: The functions called with the GIL held (see above), when there is one.
KEEP_GIL = {name for name, _, fast in _NAMES if fast}


def gil_enabled() -> bool:
    """Whether this interpreter runs with the GIL: False only on a free-threaded build that runs
    without it (``sys._is_gil_enabled()``, Python 3.13+; older Pythons always have it)."""
    check = getattr(sys, "_is_gil_enabled", None)
    return True if check is None else bool(check())


#: Whether the hot calls keep the GIL (``ctypes.PyDLL``), read once at import. Their reasoning
#: needs a GIL: a PyDLL call blocks every thread's Python code while it runs, and no bytecode
#: runs between the read of ``_state.RUNS`` and a cancel that relies on it. Without one (a
#: free-threaded build), a call that kept its thread attached could hold up another thread's
#: callback or a stop-the-world collection, and another thread may start running a loop between
#: that read and the call: every function is then called through ``ctypes.CDLL``, which detaches
#: the thread for the call (correct, and a little slower).
GIL = gil_enabled()


def decode(raw: bytes | None) -> str:
    """A static C string from the library as :class:`str` (empty for NULL)."""
    return raw.decode("utf-8", "replace") if raw else ""


def _candidates() -> Iterator[tuple[str, str | None]]:
    """Where to look, in order, as (description, path) pairs; None for "not found". Lazy: the
    system lookup (:func:`ctypes.util.find_library`, which runs ``ldconfig`` and the C compiler
    as subprocesses, tens of milliseconds) happens only when every place before it failed.

    The package's folders are this file's, then the others on its ``__path__``: an editable
    install (``pip install -e .``) imports the Python files from the source tree but installs the
    library into site-packages, and lists both folders on ``__path__``.
    """
    override = os.environ.get(ENV_VAR)
    if override:
        yield (f"environment variable {ENV_VAR}", override)
        return
    here = Path(__file__).resolve().parent
    package = sys.modules.get(__package__ or "")
    folders = dict.fromkeys([here, *(Path(p).resolve() for p in getattr(package, "__path__", []))])
    for folder in folders:
        yield ("bundled in the package", str(folder / _FILE_NAME))
    # <repo>/bindings/python/src/cadence: parents[3] is the checkout (a package folder with fewer
    # ancestors, such as /app/cadence, is in none).
    if len(here.parents) > 3:
        yield ("build tree", str(here.parents[3] / "build" / _FILE_NAME))
    import ctypes.util  # here: importing it costs about 15 ms (subprocess, shutil and more)

    yield ("system (ctypes.util.find_library)", ctypes.util.find_library("cadence"))


def _declare(lib: ctypes.CDLL, fast: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in PROTOTYPES.items():
        for function in (getattr(lib, name), getattr(fast, name)):
            function.restype, function.argtypes = restype, argtypes
        if GIL and name in KEEP_GIL:
            setattr(lib, name, getattr(fast, name))


def _load() -> tuple[ctypes.CDLL, str]:
    tried: list[str] = []
    for where, path in _candidates():
        if path is None or (os.sep in path and not os.path.exists(path)):
            tried.append(f"  {where}: {path}: no such file" if path else f"  {where}: not found")
            continue
        try:
            lib = ctypes.CDLL(path)
            _declare(lib, ctypes.PyDLL(path))
        except (OSError, AttributeError) as error:
            tried.append(f"  {where}: {path}: {error}")
            continue
        if int(lib.cadence_version()) >> 16 != API_MAJOR:
            raise OSError(
                f"the Cadence library at {path} is version {decode(lib.cadence_version_string())}"
                f", but this binding needs major version {API_MAJOR}; install a matching library "
                f"or set {ENV_VAR} to one"
            )
        return lib, path
    raise OSError(
        "could not load the Cadence shared library. Tried:\n"
        + "\n".join(tried)
        + "\nBuild it in the repository (cmake -S . -B build -G Ninja && cmake --build build), "
        f"or set {ENV_VAR} to the path of a libcadence.so."
    )


lib, path = _load()


def version() -> int:
    """The loaded library's version as ``(major << 16) | (minor << 8) | patch``."""
    return int(lib.cadence_version())


def version_string() -> str:
    """The loaded library's version as ``"major.minor.patch"``."""
    return decode(lib.cadence_version_string())
