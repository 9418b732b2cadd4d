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
import ctypes.util
import os
import sys
from pathlib import Path

#: The major version of the C API this binding speaks (``CADENCE_VERSION_MAJOR``).
API_MAJOR = 0

ENV_VAR = "CADENCE_LIBRARY"

if sys.platform == "darwin":
    _FILE_NAMES = ("libcadence.dylib",)
elif sys.platform == "win32":
    _FILE_NAMES = ("cadence.dll",)
else:
    _FILE_NAMES = ("libcadence.so",)


# ---- Types from include/cadence.h ----


# A handle (cadence_loop, cadence_publisher, cadence_cancellable) is ``struct { uint64_t id; }``
# passed by value. Every C ABI this binding runs on (x86-64 System V, AArch64 AAPCS64) passes a
# struct of one 64-bit integer exactly as that integer, and lays it out the same in memory, so the
# prototypes declare handles as ``c_uint64`` and the binding keeps them as Python ints: a ctypes
# Structure per handle would cost an object per timer and a conversion per call.

#: ``cadence_loop``, ``cadence_publisher``, ``cadence_cancellable``: the handle's ``id``.
Handle = ctypes.c_uint64


class CTick(ctypes.Structure):
    """``cadence_tick``: one firing, valid only during the callback."""

    _fields_ = [
        ("fire_date", ctypes.c_double),
        ("skipped", ctypes.c_uint64),
        ("source", Handle),
        ("final", ctypes.c_int),
    ]


#: ``void (*cadence_tick_fn)(const cadence_tick *tick, void *userdata)``
TICK_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(CTick), ctypes.c_void_p)
#: ``void (*cadence_fire_fn)(void *userdata, double fire_date, uint64_t skipped, int final)``
FIRE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_double, ctypes.c_uint64, ctypes.c_int)
#: ``void (*cadence_release_fn)(void *userdata)``
RELEASE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class CCountdownEvent(ctypes.Structure):
    """``cadence_countdown_event``: one call of a countdown's callback, valid only during it."""

    _fields_ = [
        ("remaining", ctypes.c_int64),
        ("finished", ctypes.c_int),
        ("date", ctypes.c_double),
        ("source", Handle),
    ]


#: ``void (*cadence_countdown_fn)(const cadence_countdown_event *event, void *userdata)``
COUNTDOWN_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(CCountdownEvent), ctypes.c_void_p)


class CPoll(ctypes.Structure):
    """``cadence_poll``: one poll, as passed to a poller's callback, valid only during it."""

    _fields_ = [
        ("number", ctypes.c_uint64),
        ("date", ctypes.c_double),
        ("source", Handle),
    ]


#: ``void (*cadence_poll_fn)(const cadence_poll *poll, void *userdata)``
POLL_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(CPoll), ctypes.c_void_p)

#: ``CADENCE_TOLERANCE_DEFAULT``: a poller tolerance of 10 % of its interval.
TOLERANCE_DEFAULT = -1.0

_int = ctypes.c_int
_double = ctypes.c_double
_char_p = ctypes.c_char_p
_void_p = ctypes.c_void_p
_handle_out = ctypes.POINTER(Handle)

#: Every function of include/cadence.h: name -> (restype, argtypes).
PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    # Version and errors
    "cadence_version": (ctypes.c_uint, []),
    "cadence_version_string": (_char_p, []),
    "cadence_strerror": (_char_p, [_int]),
    "cadence_err_name": (_char_p, [_int]),
    "cadence_last_error_message": (_char_p, []),
    # Loops
    "cadence_loop_create": (_int, [_handle_out]),
    "cadence_loop_destroy": (_int, [Handle]),
    "cadence_loop_run": (_int, [Handle, _char_p, _double]),
    "cadence_loop_run_until_idle": (_int, [Handle, _char_p]),
    "cadence_loop_stop": (_int, [Handle]),
    "cadence_loop_add_mode": (_int, [Handle, _char_p]),
    "cadence_loop_add_common_mode": (_int, [Handle, _char_p]),
    "cadence_loop_now": (_int, [Handle, ctypes.POINTER(_double)]),
    "cadence_loop_wakeups": (_int, [Handle, ctypes.POINTER(ctypes.c_uint64)]),
    "cadence_loop_armed_timers": (_int, [Handle, ctypes.POINTER(ctypes.c_uint64)]),
    # Driving a loop from the host's own event loop
    "cadence_loop_fd": (_int, [Handle, ctypes.POINTER(_int)]),
    "cadence_loop_timeout": (_int, [Handle, ctypes.POINTER(_double)]),
    "cadence_loop_run_pass": (_int, [Handle, _char_p]),
    # A loop on a thread of its own
    "cadence_loop_start_thread": (_int, [Handle, _char_p]),
    "cadence_loop_stop_thread": (_int, [Handle]),
    # Virtual time
    "cadence_loop_create_virtual": (_int, [_handle_out]),
    "cadence_loop_advance_clock": (_int, [Handle, _double]),
    # Timer publishers
    "cadence_timer_publish": (
        _int,
        [Handle, _double, _double, _char_p, _handle_out],
    ),
    "cadence_publisher_set_missed_ticks": (_int, [Handle, _int]),
    "cadence_publisher_autoconnect": (
        _int,
        [Handle, _handle_out],
    ),
    "cadence_publisher_subscribe": (
        _int,
        [Handle, TICK_FN, _void_p, _handle_out],
    ),
    "cadence_publisher_connect": (
        _int,
        [Handle, _handle_out],
    ),
    "cadence_publisher_release": (_int, [Handle]),
    # Scheduled timers
    "cadence_loop_schedule": (
        _int,
        [
            Handle,
            _double,
            _double,
            _char_p,
            TICK_FN,
            _void_p,
            _handle_out,
        ],
    ),
    "cadence_loop_schedule_repeating": (
        _int,
        [
            Handle,
            _double,
            _double,
            _double,
            _int,
            _char_p,
            TICK_FN,
            _void_p,
            _handle_out,
        ],
    ),
    "cadence_timer_unref": (_int, [Handle]),
    "cadence_timer_ref": (_int, [Handle]),
    "cadence_timer_has_ref": (_int, [Handle, ctypes.POINTER(_int)]),
    "cadence_timer_reset": (_int, [Handle, _double]),
    "cadence_timer_fire_date": (_int, [Handle, ctypes.POINTER(_double)]),
    "cadence_timer_interval": (_int, [Handle, ctypes.POINTER(_double)]),
    "cadence_timer_tolerance": (_int, [Handle, ctypes.POINTER(_double)]),
    # Countdowns
    "cadence_countdown_start": (
        _int,
        [Handle, _double, _double, COUNTDOWN_FN, _void_p, _handle_out],
    ),
    # Pollers
    "cadence_poller_start": (
        _int,
        [Handle, _double, _double, POLL_FN, _void_p, _handle_out],
    ),
    "cadence_poller_finish": (_int, [Handle, ctypes.c_uint64]),
    "cadence_poller_set_active": (_int, [Handle, _int]),
    "cadence_poller_tolerance": (_int, [Handle, ctypes.POINTER(_double)]),
    # Cancellables
    "cadence_cancel": (_int, [Handle]),
    "cadence_is_cancelled": (_int, [Handle, ctypes.POINTER(_int)]),
    "cadence_cancellable_release": (_int, [Handle]),
    "cadence_cancellable_detach": (_int, [Handle]),
    # Callbacks per loop, for bindings
    "cadence_loop_set_callbacks": (_int, [Handle, FIRE_FN, RELEASE_FN]),
    "cadence_loop_schedule_default": (_int, [Handle, _double, _void_p, _handle_out]),
}


def decode(raw: bytes | None) -> str:
    """A static C string from the library as :class:`str` (empty for NULL)."""
    return raw.decode("utf-8", "replace") if raw else ""


def _candidates() -> list[tuple[str, str | None]]:
    """Where to look, in order, as (description, path) pairs; None for "not found"."""
    override = os.environ.get(ENV_VAR)
    if override:
        return [(f"environment variable {ENV_VAR}", override)]
    here = Path(__file__).resolve().parent
    found: list[tuple[str, str | None]] = []
    for folder in _package_folders(here):
        found += [("bundled in the package", str(folder / name)) for name in _FILE_NAMES]
    # <repo>/bindings/python/src/cadence: parents[3] is the checkout.
    repo = here.parents[3]
    found += [("build tree", str(repo / "build" / name)) for name in _FILE_NAMES]
    found.append(("system (ctypes.util.find_library)", ctypes.util.find_library("cadence")))
    return found


def _package_folders(here: Path) -> list[Path]:
    """The folders of the package ``cadence``: this file's, then the others on its ``__path__``.

    An editable install (``pip install -e .``) imports the Python files from the source tree but
    installs the library into site-packages, and lists both folders on ``__path__``.
    """
    folders = [here]
    package = sys.modules.get(__package__ or "")
    for entry in getattr(package, "__path__", []):
        folder = Path(entry).resolve()
        if folder not in folders:
            folders.append(folder)
    return folders


def _declare(lib: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in PROTOTYPES.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


def _check_version(lib: ctypes.CDLL, path: str) -> None:
    major = int(lib.cadence_version()) >> 16
    if major != API_MAJOR:
        found = decode(lib.cadence_version_string())
        raise OSError(
            f"the Cadence library at {path} is version {found}, but this binding needs major "
            f"version {API_MAJOR}; install a matching library or set {ENV_VAR} to one"
        )


def _load() -> tuple[ctypes.CDLL, str]:
    tried: list[str] = []
    for where, path in _candidates():
        if path is None:
            tried.append(f"  {where}: not found")
            continue
        if os.sep in path and not os.path.exists(path):
            tried.append(f"  {where}: {path}: no such file")
            continue
        try:
            lib = ctypes.CDLL(path)
            _declare(lib)
        except (OSError, AttributeError) as error:
            tried.append(f"  {where}: {path}: {error}")
            continue
        _check_version(lib, path)
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
