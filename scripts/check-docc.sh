#!/bin/sh
# Builds the DocC documentation of the Cadence module (the catalog and every `///` comment, down to
# private declarations) and fails on any DocC warning: a symbol link that does not resolve, a
# parameter left undocumented, a documented parameter that does not exist.
#   scripts/check-docc.sh        (from the repository root; needs `docc` beside `swift`; `make docs`)
# The archive is thrown away, unless DOCC_OUTPUT names where to write it (a browsable
# Cadence.doccarchive, such as DOCC_OUTPUT=build/Cadence.doccarchive; its parent must exist).
set -eu
bin=$(dirname "$(command -v swift)")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The symbol graph of the Cadence module alone, from the module this build just made: SwiftPM's
# `dump-symbol-graph` extracts every module of the package, and fails (printing an error while
# the check passes) on the test modules when they have not been built.
swift build --target Cadence
modules=$(swift build --show-bin-path)/Modules
triple=$(swift -print-target-info | sed -n 's/^ *"triple": "\(.*\)",$/\1/p' | head -n 1)
# libuv's header, wherever pkg-config says it is (CLibUV's module map includes <uv.h>).
set --
for flag in $(pkg-config --cflags-only-I libuv); do set -- "$@" -Xcc "$flag"; done
mkdir "$work/graphs"
"$bin/swift-symbolgraph-extract" -module-name Cadence -target "$triple" -minimum-access-level private \
    -I "$modules" -I Sources/CLibUV "$@" -output-dir "$work/graphs"
"$bin/docc" convert Sources/Cadence/Cadence.docc --additional-symbol-graph-dir "$work/graphs" \
    --fallback-display-name Cadence --fallback-bundle-identifier org.cadence.Cadence \
    --output-path "${DOCC_OUTPUT:-$work/Cadence.doccarchive}" --analyze --warnings-as-errors
