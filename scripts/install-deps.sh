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
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  want=()
  for module in pytest ruff mypy; do "$python" -c "import $module" 2>/dev/null || want+=("$module"); done
  if [ ${#want[@]} -gt 0 ]; then
    echo "installing Python packages: ${want[*]}"
    # Debian's own Python refuses pip (PEP 668) unless told otherwise.
    "$python" -m pip install -q "${want[@]}" 2>/dev/null \
      || "$python" -m pip install -q --break-system-packages "${want[@]}"
  fi
  # The wheel test builds a fresh virtual environment.
  "$python" -c "import ensurepip" 2>/dev/null || {
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv
  }
fi

command -v swift >/dev/null || { echo "swift not found: install a Swift 6 toolchain and put it on PATH" >&2; exit 1; }
