#!/usr/bin/env bash
# Installs what building and testing Cadence needs, only when it is missing:
# Debian packages with apt-get (one `apt-get update` first) and Python test tools with pip
# (or Debian's package where pip may not install into the system's Python).
# Usage: scripts/install-deps.sh [build|test]
set -euo pipefail
need=${1:-build}

debs=(pkg-config libuv1-dev cmake ninja-build)
[ "$need" = test ] && debs+=(valgrind)
missing=()
for deb in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$deb" 2>/dev/null | grep -q "install ok installed" || missing+=("$deb")
done
# Any Python 3 will do (pyenv, a venv, Debian's); Debian's only when there is none.
[ "$need" = test ] && ! command -v "${PYTHON:-python3}" >/dev/null && missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ "$need" = test ]; then
  python=${PYTHON:-python3}
  if ! "$python" -c "import pytest" 2>/dev/null; then
    echo "installing Python packages: pytest"
    # Debian's own Python refuses pip (PEP 668): fall back to Debian's package for it.
    "$python" -m pip install -q pytest 2>/dev/null || {
      sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
      $sudo apt-get update -q
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-pytest
    }
  fi
fi

command -v swift >/dev/null || { echo "swift not found: install a Swift 6 toolchain and put it on PATH" >&2; exit 1; }
