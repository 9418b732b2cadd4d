#!/usr/bin/env python3
"""check-engine-c-words.py - keep the C ABI's words out of the engine (Sources/Cadence).

Usage: scripts/check-engine-c-words.py [--counts]

Counts, per file of Sources/Cadence, the code lines (comments left out) that name a C word of the
ABI: raw pointers (UnsafeRawPointer, UnsafeMutableRawPointer), C function pointers
(@convention(c)), userdata, and Int32. None may name the ABI: the C layer (Sources/CCadence) is
where its words belong, and the engine keeps what a host hands it as plain words it never reads
(TimerHandler.swift). KEEP holds what is not the ABI and stays, each file with exactly that
count (more fails: a C word came in; fewer fails too: lower the count): libuv and POSIX under
the engine, public API with C's integer widths.

--counts also prints the number of `package` declarations in Sources/Cadence, the doors the C
layer, CadenceTasks and the tests go through (the engine's own API is public; the rest is
internal).

Exit status: 0 when every file matches its entry, 1 otherwise (each mismatch printed).
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join(ROOT, "Sources", "Cadence")
WORDS = re.compile(r"UnsafeRawPointer|UnsafeMutableRawPointer|@convention\(c\)|userdata|\bInt32\b")
PACKAGE = re.compile(r"(^|\s)package\s+(?!import)")

# Not the ABI, and staying: libuv and POSIX under the engine, public API in C's integer widths,
# the Swift runtime's reference counts.
KEEP = {
    "Internals/UVBackend.swift": 11,  # libuv handles and descriptors, the engine's own backend
    "Loop+Host.swift": 4,  # Loop(uvLoop:) and fileDescriptor(): a host's uv_loop_t and descriptor
    "CadenceError.swift": 5,  # the error code, an errno-like Int32 (public)
    "MissedTickPolicy.swift": 1,  # raw values, one number in every language
    "Internals/TimeSource.swift": 1,  # a descriptor
    "Internals/VirtualClock.swift": 1,  # a descriptor
    "Internals/FreedMemory.swift": 4,  # sysconf, madvise, getrlimit, the overcommit setting
    "Internals/TimerHeap.swift": 1,  # a signed distance between sequences
    "Internals/ClosureHandler.swift": 2,  # a Swift closure's context, retained and released
}


def code(line: str) -> str:
    """The line without its `//` comment (string literals with `//` in them are not expected)."""
    return line.split("//", 1)[0]


def scan() -> tuple[dict[str, int], int]:
    """Per file (relative to Sources/Cadence): C-word code lines, and `package` declarations."""
    words: dict[str, int] = {}
    packages = 0
    for folder, _, files in os.walk(ENGINE):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                lines = [code(line) for line in handle]
            rel = os.path.relpath(path, ENGINE)
            count = sum(1 for line in lines if WORDS.search(line))
            if count:
                words[rel] = count
            packages += sum(1 for line in lines if PACKAGE.search(line))
    return words, packages


def main() -> int:
    """Checks every file against its entry; prints the counts with --counts."""
    words, packages = scan()
    expected = KEEP
    problems = []
    for rel in sorted(set(words) | set(expected)):
        found, allowed = words.get(rel, 0), expected.get(rel, 0)
        if found > allowed:
            problems.append(
                f"{rel}: {found} lines with C words, allowed {allowed} (the C ABI's words belong "
                "in Sources/CCadence)"
            )
        elif found < allowed:
            problems.append(
                f"{rel}: {found} lines with C words, allow-list says {allowed} (lower it)"
            )
    if "--counts" in sys.argv[1:]:
        print(f"C-word code lines in Sources/Cadence: {sum(words.values())}, none of the ABI")
        print(f"package declarations in Sources/Cadence: {packages}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
