#!/bin/sh
# Builds and runs examples/c/ticker.c against the Cadence installed in PREFIX the way a user
# would: `cc ticker.c $(pkg-config --cflags --libs cadence)` and a run path to the prefix, nothing
# from a build tree; then examples/c/uv_host.c, which includes the installed <cadence/uv.h>.
# pkg_config.sh runs it on a fresh install, scripts/dist-check.sh on the unpacked packages.
# Usage: with_pkg_config.sh PREFIX LIBDIR SOURCE_DIR WORK_DIR CC
set -eu
prefix=$1 libdir=$2 source=$3 work=$4 cc=$5

export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
# The license goes with the install: its text, and its SPDX identifier in the .pc file.
grep -q "Apache License" "$prefix/share/doc/cadence/LICENSE"
grep -qx "License: Apache-2.0" "$PKG_CONFIG_PATH/cadence.pc"
flags=$(pkg-config --cflags --libs cadence)
echo "pkg-config: $flags"
mkdir -p "$work"
# shellcheck disable=SC2086 # the flags are words
"$cc" -std=c11 -Wall -Wextra -Werror "$source/examples/c/ticker.c" $flags \
  -Wl,-rpath,"$prefix/$libdir" -o "$work/ticker"

# libcadence comes from the prefix, the Swift runtime inside it (consumer.installed_library checks
# that; with CADENCE_STATIC_STDLIB=OFF, from the toolchain through libcadence's RUNPATH).
"$work/ticker"

# <cadence/uv.h> from the prefix too: examples/c/uv_host.c, with libuv's own pkg-config flags.
uv_flags=$(pkg-config --cflags --libs cadence libuv)
# shellcheck disable=SC2086 # the flags are words
"$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror "$source/examples/c/uv_host.c" $uv_flags \
  -Wl,-rpath,"$prefix/$libdir" -o "$work/uv_host"
"$work/uv_host"
