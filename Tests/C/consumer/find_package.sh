#!/bin/sh
# Builds and runs examples/c (its CMakeLists.txt: find_package(Cadence), Cadence::cadence) against
# the prefix that pkg_config.sh installed, or PREFIX (scripts/dist-check.sh: an unpacked package).
# Usage: find_package.sh CMAKE SOURCE_DIR WORK_DIR GENERATOR CC [PREFIX]
set -eu
cmake=$1 source=$2 work=$3 generator=$4 cc=$5 prefix=${6:-$3/prefix}

rm -rf "$work/find_package"
"$cmake" -S "$source/examples/c" -B "$work/find_package" -G "$generator" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
"$cmake" --build "$work/find_package" >/dev/null
# CMake's build RPATH points at the prefix's libcadence.
"$work/find_package/ticker"
