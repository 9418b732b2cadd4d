#!/usr/bin/env bash
# Installs each artefact of dist/ (scripts/dist.sh) where the Swift toolchain cannot be seen and
# runs it: in a mount namespace with an empty tmpfs over the toolchain's folder, under
# `env -i PATH=/usr/bin:/bin`, as on a machine that has never had Swift.
#   C tarball     unpacked into a new folder: its library needs only system libraries, RUNPATH
#                 $ORIGIN; examples/c built with pkg-config and with find_package(Cadence), and run
#   Debian        unpacked (dpkg-deb -x, the system is left alone): the same two builds
#   wheel         installed with its `test` extra into a fresh virtual environment: the package's
#                 pytest suite (bindings/python/tests) against it, and a user's test through the
#                 pytest plugin's entry point
#   sdist         holds what building needs, at this version
# Usage: scripts/dist-check.sh PYTHON [BUILD_DIR] (PYTHON: a Python 3 for the virtual environment;
# pip fetches pytest, pytest-asyncio and hypothesis). Runs as root or with unprivileged user namespaces; else
# it says so and only cleans the environment.
set -euo pipefail

if [ "${1:-}" = --inside ]; then
  shift
else
  build=${2:-build}
  cd "$(dirname "$0")/.."
  base=$("$1" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')
  root=$PWD
  version=$(scripts/version.sh)
  work="$root/$build/dist-check"
  rm -rf "$work"
  mkdir -p "$work/home"
  toolchain=""
  if command -v swiftc >/dev/null; then
    toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
  fi
  inside=(/usr/bin/env -i PATH=/usr/bin:/bin HOME="$work/home" LANG=C.UTF-8
    bash "$root/scripts/dist-check.sh" --inside "$root" "$work" "$version" "$base" "$toolchain")
  if [ -z "$toolchain" ]; then
    exec "${inside[@]}"
  fi
  hide="mount -t tmpfs cadence-no-toolchain \"\$0\" && exec \"\$@\""
  for how in "--mount" "--user --map-root-user --mount"; do
    # shellcheck disable=SC2086 # the options are words
    if unshare $how true 2>/dev/null; then
      echo "dist-check: hiding $toolchain (unshare $how, a tmpfs over it)"
      # shellcheck disable=SC2086
      exec unshare $how sh -c "$hide" "$toolchain" "${inside[@]}"
    fi
  done
  echo "dist-check: cannot make a mount namespace here; $toolchain stays visible, PATH is clean" >&2
  exec "${inside[@]}"
fi

root=$1 work=$2 version=$3 base=$4 toolchain=$5
cd "$root"
arch=$(uname -m)
major=${version%%.*}
name="cadence-$version-linux-$arch"
fail() { echo "dist-check: $*" >&2; exit 1; }
one() {  # the one file that matches the pattern $1, or a failure that says to run make dist
  set -- $1
  [ $# -eq 1 ] && [ -e "$1" ] || fail "want one $1 in dist/ (make dist first)"
  echo "$1"
}
tarball=$(one "dist/$name.tar.gz")
sdist=$(one "dist/cadence-$version.tar.gz")
wheel=$(one "dist/cadence-$version-py3-none-manylinux_*_$arch.whl")
deb=$(one "dist/cadence_${version}_*.deb")

echo "== no Swift toolchain"
! command -v swiftc >/dev/null && ! command -v swift >/dev/null || fail "a Swift toolchain is on PATH"
if [ -n "$toolchain" ] && [ -n "$(ls -A "$toolchain")" ]; then
  echo "dist-check: $toolchain is still visible" >&2
fi

echo "== $tarball"
mkdir -p "$work/c"
tar -C "$work/c" -xzf "$tarball"
prefix="$work/c/$name"
library="$prefix/lib/libcadence.so.$major"
cmake -DREADELF=readelf -DLIBRARY="$library" -DSONAME="libcadence.so.$major" \
  -P cmake/CheckSelfContained.cmake
if ldd "$library" | grep -E "not found|swift|dispatch|Foundation"; then
  fail "$library needs the libraries above"
fi
grep -qx "Version: $version" "$prefix/lib/pkgconfig/cadence.pc" || fail "cadence.pc is not $version"
sh Tests/C/consumer/with_pkg_config.sh "$prefix" lib "$root" "$work/c/pkg_config" cc
sh Tests/C/consumer/find_package.sh cmake "$root" "$work/c" Ninja cc "$prefix"

echo "== $deb"
dpkg-deb -f "$deb" Depends | grep -q "libuv1" || fail "$deb does not depend on libuv1"
dpkg-deb -x "$deb" "$work/deb"
sh Tests/C/consumer/with_pkg_config.sh "$work/deb/usr" lib "$root" "$work/deb/pkg_config" cc
sh Tests/C/consumer/find_package.sh cmake "$root" "$work/deb" Ninja cc "$work/deb/usr"

echo "== $sdist"
listing=$(tar -tzf "$sdist")
for file in pyproject.toml CMakeLists.txt LICENSE include/cadence.h include/cadence/version.h \
  Sources/CCadence/CMakeLists.txt bindings/python/src/cadence/__init__.py cmake/Python.cmake; do
  grep -qx "cadence-$version/$file" <<<"$listing" || fail "$sdist lacks $file"
done
! grep -q "^cadence-$version/\(Benchmarks\|build\|dist\|\.build\)/" <<<"$listing" \
  || fail "$sdist holds build output or Benchmarks/"
info=$(tar -xzOf "$sdist" "cadence-$version/PKG-INFO")
grep -qx "Version: $version" <<<"$info" || fail "$sdist's PKG-INFO is not $version"

echo "== $wheel"
"$base" -m venv "$work/venv"
python="$work/venv/bin/python"
"$python" -m pip install -q --disable-pip-version-check "$root/$wheel[test]" pytest-asyncio hypothesis
# The suite imports `cadence` from the installed wheel: pyproject.toml's pythonpath (the sources)
# is left out by a configuration of its own, and the library is the wheel's.
cat >"$work/pytest.ini" <<EOF
[pytest]
addopts = -ra --strict-markers -p no:cadence.pytest_plugin -p no:cacheprovider
markers = wheel: builds the wheel (needs a Swift toolchain; deselected here)
xfail_strict = true
filterwarnings = error
asyncio_default_fixture_loop_scope = function
EOF
installed=$("$python" -c 'import sys; sys.path[:0] = ["", "bindings/python/tests"]
import cadence; print(cadence.__file__, cadence.library_path)')
case "$installed" in
  "$work/venv/"*"/cadence/__init__.py $work/venv/"*/cadence/libcadence.so) echo "loads $installed" ;;
  *) fail "the suite would not load the installed wheel: $installed" ;;
esac
# Left out: ruff and mypy, which check the sources, and test_wheel, which builds a wheel (both
# need the repository's tools); test_engine_copies, which reads the function names of the build
# tree's library (the wheel's is stripped); and two tests of the suite's own pytest settings,
# which run pytest with pyproject.toml and so with the sources on sys.path.
tests=bindings/python/tests
"$python" -m pytest -c "$work/pytest.ini" --rootdir "$root" -q -m "not wheel" \
  --ignore "$tests/test_static_checks.py" \
  --ignore "$tests/test_engine_copies.py" \
  --deselect "$tests/test_dropped_warning.py::test_an_unexpected_warning_in_a_finalizer_fails_the_test" \
  --deselect "$tests/test_examples.py::test_the_fixture_example_tests_its_reminder" \
  "$tests" | tail -3

# A user's project: the virtual_loop fixture through the plugin's entry point, no conftest.py.
mkdir -p "$work/project"
cp bindings/python/tests/installed/countdown_test.py "$work/project/test_countdown.py"
printf '[pytest]\nasyncio_default_fixture_loop_scope = function\n' >"$work/project/pytest.ini"
(cd "$work/project" && "$python" -m pytest -q -p no:cacheprovider | tail -1)

echo "dist-check: every artefact of dist/ works without a Swift toolchain"
