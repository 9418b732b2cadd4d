#!/usr/bin/env bash
# Installs what building, testing and benchmarking Cadence needs, only when it is missing:
# Debian packages with apt-get (one `apt-get update` first) and Python test tools with pip
# (or Debian's package where pip may not install into the system's Python).
# Usage: scripts/install-deps.sh [build|test|bench]
#   bench adds what the peers of Benchmarks/peers need: gcc, Node and a Python with venv
#   (Benchmarks/run itself makes the venv with uvloop on first use).
set -euo pipefail
need=${1:-build}

debs=(pkg-config libuv1-dev cmake ninja-build)
[ "$need" = test ] && debs+=(valgrind)
missing=()
for deb in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$deb" 2>/dev/null | grep -q "install ok installed" || missing+=("$deb")
done
# Any Python 3 will do (pyenv, a venv, Debian's); Debian's only when there is none.
[ "$need" != build ] && ! command -v "${PYTHON:-python3}" >/dev/null && missing+=(python3)
if [ "$need" = bench ]; then
  # gcc and node from anywhere on PATH; Debian's packages only when there are none.
  command -v gcc >/dev/null || missing+=(gcc libc6-dev)
  command -v node >/dev/null || missing+=(nodejs)
  # The uvloop venv: Debian's Python has no ensurepip (so no venv) without python3-venv.
  "${PYTHON:-python3}" -c "import ensurepip" 2>/dev/null || missing+=(python3-venv)
fi
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
