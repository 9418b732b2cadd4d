#!/bin/sh
# Builds the DocC documentation of the Cadence module (the catalog and every `///` comment, down to
# private declarations) and fails on any DocC warning: a symbol link that does not resolve, a
# parameter left undocumented, a documented parameter that does not exist.
#   scripts/check-docc.sh        (from the repository root; needs `docc` beside `swift`; `make docs`)
# The archive is thrown away, unless DOCC_OUTPUT names where to write it (a browsable
# Cadence.doccarchive, such as DOCC_OUTPUT=build/Cadence.doccarchive; its parent must exist).
set -eu
docc=$(dirname "$(command -v swift)")/docc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The graphs of this build, where SwiftPM says it wrote them (not an older build's).
graphs=$(swift package dump-symbol-graph --minimum-access-level private | sed -n 's/^Files written to //p')
mkdir "$work/graphs"
cp "$graphs"/Cadence.symbols.json "$graphs"/Cadence@*.symbols.json "$work/graphs/"
"$docc" convert Sources/Cadence/Cadence.docc --additional-symbol-graph-dir "$work/graphs" \
    --fallback-display-name Cadence --fallback-bundle-identifier org.cadence.Cadence \
    --output-path "${DOCC_OUTPUT:-$work/Cadence.doccarchive}" --analyze --warnings-as-errors
