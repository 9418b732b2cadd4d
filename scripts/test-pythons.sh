#!/usr/bin/env bash
# The Python tests that depend on the interpreter's asyncio (cadence.asyncio's event loops, its
# run(), the pytest marker, asyncio attached to a Cadence loop, the docs' fragments), run on every
# Python from 3.9 (pyproject.toml's requires-python) that this machine has, besides the one that
# runs the whole suite: asyncio's internals and its loop's life cycle change between versions.
# Each gets a virtual environment, $BUILD/venv-3.X, with pytest, pytest-asyncio and hypothesis (pip installs
# into it only what is missing). An interpreter is python3.X on PATH, or one installed by pyenv.
# Usage: scripts/test-pythons.sh PYTHON BUILD     (PYTHON: the interpreter of the whole suite)
set -euo pipefail
python=$1
build=$2
main=$("$python" -c 'import sys; print(f"3.{sys.version_info[1]}")')
pyenv_root=$(command -v pyenv >/dev/null && pyenv root || true)
tests=(bindings/python/tests/test_asyncio*.py bindings/python/tests/test_pytest_marker.py
       bindings/python/tests/test_hosted_coalescing.py bindings/python/tests/test_docs.py)

find_python() {  # the interpreter of version $1, or nothing
  if command -v "python$1" >/dev/null && "python$1" -c '' 2>/dev/null; then
    command -v "python$1"
    return
  fi
  [ -n "$pyenv_root" ] || return 0
  local found
  for found in "$pyenv_root"/versions/"$1".*/bin/"python$1"; do
    if [ -x "$found" ]; then
      echo "$found"
      return
    fi
  done
}

ran=() missing=() unusable=()
for minor in 9 10 11 12 13 14; do
  version=3.$minor
  [ "$version" = "$main" ] && continue
  interpreter=$(find_python "$version")
  if [ -z "$interpreter" ]; then
    missing+=("$version")
    continue
  fi
  venv=$build/venv-$version
  # An interpreter without venv (Debian's python3.X without python3.X-venv) or a machine without
  # PyPI cannot have the tools: said and skipped, not a failure of the tests.
  if ! { [ -x "$venv/bin/python" ] || "$interpreter" -m venv "$venv"; } >/dev/null 2>&1; then
    unusable+=("$version (no venv)")
    continue
  fi
  for package in pytest pytest-asyncio hypothesis; do
    "$venv/bin/python" -c "import importlib.metadata as m; m.version('$package')" 2>/dev/null \
      || "$venv/bin/python" -m pip install -q --disable-pip-version-check "$package" \
      || { unusable+=("$version (pip could not install $package)"); continue 2; }
  done
  echo "Python $version ($interpreter): the asyncio tests"
  "$venv/bin/python" -m pytest -q "${tests[@]}"
  ran+=("$version")
done
summary="asyncio tests on other Pythons: ${ran[*]:-none} passed"
[ ${#missing[@]} -eq 0 ] || summary+="; not on this machine: ${missing[*]}"
[ ${#unusable[@]} -eq 0 ] || summary+="; skipped: ${unusable[*]}"
echo "$summary"
