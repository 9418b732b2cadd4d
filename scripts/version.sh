#!/bin/sh
# Prints Cadence's version, "major.minor.patch", from include/cadence/version.h, the place a
# release changes it (docs/RELEASING.md), after checking the copies that cannot read that header:
# CMake's project(), Swift's cadenceVersion, Python's __version__ (the wheel's and the sdist's).
# A copy that differs is an error naming its file, so no artefact is made with two versions.
set -eu
root="$(dirname "$0")/.."
header="$root/include/cadence/version.h"
part() { sed -n "s/^#define CADENCE_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$header"; }
major=$(part MAJOR) minor=$(part MINOR) patch=$(part PATCH)
if [ -z "$major" ] || [ -z "$minor" ] || [ -z "$patch" ]; then
  echo "version.sh: no CADENCE_VERSION_MAJOR/MINOR/PATCH in $header" >&2
  exit 1
fi
version="$major.$minor.$patch"
status=0
check() {  # FILE, then the sed expression that prints the version it holds
  found=$(sed -n "$2" "$root/$1")
  if [ "$found" != "$version" ]; then
    echo "version.sh: $1 says '$found', include/cadence/version.h says $version" >&2
    status=1
  fi
}
check CMakeLists.txt 's/^project(Cadence VERSION \([0-9.]*\) .*/\1/p'
check Sources/Cadence/Loop.swift 's/^public let cadenceVersion = "\(.*\)"$/\1/p'
check bindings/python/src/cadence/__init__.py 's/^__version__ = "\(.*\)"$/\1/p'
[ $status -eq 0 ] || exit 1
echo "$version"
