#!/bin/sh
# Builds and runs examples/c with Cadence's sources as a subproject (-DCADENCE_SOURCE_DIR, which
# add_subdirectory()s them, as FetchContent does), and checks that only the library was built:
# a subproject's BUILD_TESTING is off, so none of Cadence's test programs exist.
# Usage: add_subdirectory.sh CMAKE SOURCE_DIR WORK_DIR GENERATOR CC
set -eu
cmake=$1 source=$2 work=$3 generator=$4 cc=$5
build="$work/add_subdirectory"

rm -rf "$build"
"$cmake" -S "$source/examples/c" -B "$build" -G "$generator" \
  -DCMAKE_C_COMPILER="$cc" -DCADENCE_SOURCE_DIR="$source" >/dev/null
"$cmake" --build "$build" >/dev/null

test -f "$build/cadence/libcadence.so" || { echo "no libcadence.so in $build/cadence" >&2; exit 1; }
tests=$(find "$build" -name 'c_*' -type f)
if [ -n "$tests" ]; then
  echo "Cadence's tests were built in a subproject build:" >&2
  echo "$tests" >&2
  exit 1
fi
"$build/ticker"
