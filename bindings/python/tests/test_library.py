"""Loading the shared library, the prototype table, and the error mapping."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import pickle
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import cadence
from cadence import _lib, errors

#: conftest's ``run_child``: run this source in a fresh interpreter, with this timeout.
Child = Callable[[str, float], "subprocess.CompletedProcess[str]"]
HEADER = Path(__file__).resolve().parents[3] / "include" / "cadence.h"


def test_version_is_checked_and_reported() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", cadence.library_version)
    assert _lib.version() >> 16 == _lib.API_MAJOR
    major, minor, patch = (int(part) for part in cadence.library_version.split("."))
    assert _lib.version() == (major << 16) | (minor << 8) | patch
    assert os.path.exists(cadence.library_path)


def test_library_path_and_library_version_are_both_strings() -> None:
    assert isinstance(cadence.library_path, str)
    assert type(cadence.library_path) is str
    assert type(cadence.library_version) is str  # a plain str: nothing to call
    assert not callable(cadence.library_version)
    assert cadence.library_version == _lib.version_string()


def test_the_package_namespace_has_no_future_feature() -> None:
    assert "annotations" not in dir(cadence)  # `from __future__ import annotations` leaks it
    assert set(cadence.__all__) <= set(dir(cadence))


def test_cadence_testing_comes_with_import_cadence_without_pytest(run_child: Child) -> None:
    script = (
        "import sys\n"
        "import cadence\n"
        "with cadence.Loop.virtual() as loop:\n"
        "    timeline = cadence.testing.Timeline(loop)\n"
        "    countdown = loop.countdown(loop.now() + 2, 0.5, timeline, on_finish=timeline.finish)\n"
        "    loop.run(2)\n"
        "print(timeline.events, cadence.testing.milliseconds(0.067000001))\n"
        "print('pytest' in sys.modules)\n"
    )
    result = run_child(script, 60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "['2@0', '1@1000', '0@2000', '|@2000'] 67\nFalse\n"


def test_import_asks_the_system_for_the_library_only_when_nothing_else_has_it(
    run_child: Child,
) -> None:
    # ctypes.util.find_library runs ldconfig and the C compiler as subprocesses (tens of ms).
    script = (
        "import ctypes.util\n"
        "asked = []\n"
        "ctypes.util.find_library = lambda name: asked.append(name)\n"
        "import cadence\n"
        "print(asked, cadence.library_version == cadence._lib.version_string())\n"
    )
    result = run_child(script, 60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[] True\n"


def test_a_package_folder_near_the_root_is_looked_up_without_a_build_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # /app/cadence (a container's PYTHONPATH) has no fourth ancestor: the look-up went on to the
    # system's library and its clear error, where it raised IndexError from the import.
    monkeypatch.delenv(_lib.ENV_VAR, raising=False)
    monkeypatch.setattr(_lib, "__file__", "/app/cadence/_lib.py")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    found = list(_lib._candidates())
    assert found[0] == ("bundled in the package", "/app/cadence/" + _lib._FILE_NAME)
    assert "build tree" not in [where for where, _ in found]
    assert found[-1] == ("system (ctypes.util.find_library)", None)


def test_every_header_function_has_one_prototype() -> None:
    declared = set(re.findall(r"CADENCE_EXPORT[^;(]*?\b(cadence_\w+)\(", HEADER.read_text()))
    assert declared == set(_lib.PROTOTYPES)


def test_a_bad_library_path_fails_with_a_helpful_oserror(tmp_path: Path) -> None:
    missing = tmp_path / "libcadence.so"
    source = str(Path(cadence.__file__).resolve().parents[1])
    env = {**os.environ, "CADENCE_LIBRARY": str(missing), "PYTHONPATH": source}
    result = subprocess.run(
        [sys.executable, "-c", "import cadence"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    assert "OSError: could not load the Cadence shared library" in result.stderr
    assert "CADENCE_LIBRARY" in result.stderr
    assert str(missing) in result.stderr
    assert "cmake -S . -B build -G Ninja && cmake --build build" in result.stderr


def test_c_layer_rejects_stale_and_foreign_handles() -> None:
    stale = 0xDEAD_0000_0001
    assert _lib.lib.cadence_cancel(stale) == errors.EBADF
    assert _lib.lib.cadence_cancellable_release(0) == 0
    assert _lib.lib.cadence_publisher_release(0) == 0
    assert _lib.lib.cadence_loop_close(0) == 0
    with cadence.Loop() as loop:
        auto = loop.publish(0.1).autoconnect()
        out = _lib.Handle()
        code = _lib.lib.cadence_publisher_connect(auto._handle, ctypes.byref(out))
        assert code == errors.ENOTSUP
        with pytest.raises(cadence.NotSupported) as info:
            errors.check(code, "AutoconnectTimerPublisher.connect")
        assert info.value.name == "ENOTSUP"
        assert str(info.value) == (
            "AutoconnectTimerPublisher.connect: publisher must be a connectable publisher, "
            "got an autoconnect publisher"
        )


@pytest.mark.parametrize(
    ("code", "cls", "builtin", "name"),
    [
        (errors.EINVAL, cadence.InvalidArgument, ValueError, "EINVAL"),
        (errors.ENOENT, cadence.UnknownMode, LookupError, "ENOENT"),
        (errors.EBADF, cadence.BadHandle, ValueError, "EBADF"),
        (errors.EBUSY, cadence.LoopBusy, RuntimeError, "EBUSY"),
        (errors.ENOTSUP, cadence.NotSupported, TypeError, "ENOTSUP"),
        (errors.EALREADY, cadence.AlreadyCancelled, cadence.CadenceError, "EALREADY"),
        (errors.ENOMEM, cadence.OutOfMemory, MemoryError, "ENOMEM"),
        (errors.EIO, cadence.EventLoopError, OSError, "EIO"),
        (-1000, cadence.CadenceError, Exception, "UNKNOWN"),
    ],
)
def test_error_codes_map_to_classes(
    code: int, cls: type[cadence.CadenceError], builtin: type[BaseException], name: str
) -> None:
    assert _lib.lib.cadence_loop_create(None) == errors.EINVAL  # sets the thread's message
    error = errors.error_for(code, "Loop.call")
    assert type(error) is cls
    assert isinstance(error, builtin)
    assert isinstance(error, cadence.CadenceError)
    assert (error.code, error.name, error.context) == (code, name, "Loop.call")
    assert error.detail == "out must not be NULL, got NULL"  # the C message, less the C function
    assert error.message
    assert str(error) == "Loop.call: out must not be NULL, got NULL"
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.code, str(copy)) == (cls, code, str(error))


def test_error_defaults() -> None:
    assert cadence.InvalidArgument().code == errors.EINVAL
    assert str(cadence.LoopBusy()) == "loop is running"  # the code's message stands in
    assert str(cadence.LoopBusy(context="Loop.run")) == "Loop.run: loop is running"
    assert str(cadence.InvalidArgument(context="Loop.run", detail="seconds must be >= 0")) == (
        "Loop.run: seconds must be >= 0"
    )
    assert cadence.EventLoopError().errno == 5
    with pytest.raises(TypeError):
        cadence.CadenceError()
    # A code of the wrong type is refused at once; one no C int holds is unknown, and str() works.
    with pytest.raises(TypeError, match=r"^CadenceError: code must be an int, not str$"):
        cadence.CadenceError("oops")  # type: ignore[arg-type]
    huge = cadence.CadenceError(2**40, "Loop.call")
    assert (huge.name, str(huge)) == ("UNKNOWN", "Loop.call: unknown error")


def test_the_package_version_is_the_cmake_project_version() -> None:
    cmake = HEADER.parents[1] / "CMakeLists.txt"
    found = re.search(r"project\(Cadence VERSION ([\d.]+)", cmake.read_text())
    assert found is not None
    assert cadence.__version__ == found.group(1) == cadence.library_version
