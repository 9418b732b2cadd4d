#!/bin/sh
# Installs the build into a fresh prefix, then builds and runs the examples against it with
# pkg-config (with_pkg_config.sh).
# Usage: pkg_config.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR LIBDIR CC
set -eu
cmake=$1 build=$2 source=$3 work=$4 libdir=$5 cc=$6
prefix="$work/prefix"

rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
sh "$(dirname "$0")/with_pkg_config.sh" "$prefix" "$libdir" "$source" "$work" "$cc"
