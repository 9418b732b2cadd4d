#!/usr/bin/env bash
# Installs what building and testing Cadence needs, only when it is missing:
# Debian packages with apt-get (one `apt-get update` first) and Python test tools with pip.
# Usage: scripts/install-deps.sh [build|test]
set -euo pipefail
need=${1:-build}

debs=(pkg-config libuv1-dev cmake ninja-build)
[ "$need" = test ] && debs+=(valgrind)
missing=()
for deb in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$deb" 2>/dev/null | grep -q "install ok installed" || missing+=("$deb")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ "$need" = test ]; then
  python=${PYTHON:-python3}
  wheels=()
  for module in pytest; do
    "$python" -c "import $module" 2>/dev/null || wheels+=("$module")
  done
  if [ ${#wheels[@]} -gt 0 ]; then
    echo "installing Python packages: ${wheels[*]}"
    "$python" -m pip install -q "${wheels[@]}"
  fi
fi

command -v swift >/dev/null || { echo "swift not found: install a Swift 6 toolchain and put it on PATH" >&2; exit 1; }
