#!/bin/sh
# Prints Cadence's version, "major.minor.patch", from include/cadence/version.h: the place a
# release changes it first (docs/RELEASING.md). CMake, Swift and Python repeat it, and their
# tests check that they agree with this header.
set -eu
header="$(dirname "$0")/../include/cadence/version.h"
part() { sed -n "s/^#define CADENCE_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$header"; }
major=$(part MAJOR) minor=$(part MINOR) patch=$(part PATCH)
if [ -z "$major" ] || [ -z "$minor" ] || [ -z "$patch" ]; then
  echo "version.sh: no CADENCE_VERSION_MAJOR/MINOR/PATCH in $header" >&2
  exit 1
fi
echo "$major.$minor.$patch"
