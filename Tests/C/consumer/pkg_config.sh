#!/bin/sh
# Installs the build into a fresh prefix, then builds and runs examples/c/ticker.c the way a user
# would: `cc ticker.c $(pkg-config --cflags --libs cadence)`, nothing from the build tree; then
# examples/c/uv_host.c, which includes the installed <cadence/uv.h>.
# Usage: pkg_config.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR LIBDIR CC
set -eu
cmake=$1 build=$2 source=$3 work=$4 libdir=$5 cc=$6
prefix="$work/prefix"

rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null

export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
# The license goes with the install: its text, and its SPDX identifier in the .pc file.
grep -q "Apache License" "$prefix/share/doc/cadence/LICENSE"
grep -qx "License: Apache-2.0" "$PKG_CONFIG_PATH/cadence.pc"
flags=$(pkg-config --cflags --libs cadence)
echo "pkg-config: $flags"
# shellcheck disable=SC2086 # the flags are words
"$cc" -std=c11 -Wall -Wextra -Werror "$source/examples/c/ticker.c" $flags -o "$work/ticker"

# libcadence comes from the prefix, the Swift runtime inside it (consumer.installed_library checks
# that; with CADENCE_STATIC_STDLIB=OFF, from the toolchain through libcadence's RUNPATH).
LD_LIBRARY_PATH="$prefix/$libdir" "$work/ticker"

# <cadence/uv.h> from the prefix too: examples/c/uv_host.c, with libuv's own pkg-config flags.
uv_flags=$(pkg-config --cflags --libs cadence libuv)
# shellcheck disable=SC2086 # the flags are words
"$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror "$source/examples/c/uv_host.c" $uv_flags \
  -o "$work/uv_host"
LD_LIBRARY_PATH="$prefix/$libdir" "$work/uv_host"
