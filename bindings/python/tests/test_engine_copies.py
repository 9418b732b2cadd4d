"""The engine's per-timer paths never copy a loop's timer queues whole.

Calling a non-mutating method of ``TimerQueues`` from a mutating one can make the compiler copy the
struct around the call, every one of its arrays retained and released: once, each fire of a pass
that took all its due timers paid about 360 instructions for it (fire at 10^7 timers 175-220 ns
instead of 62-76), and no behaviour test could see it. This reads the built library's machine code
(``objdump -d``) and fails when a function calls the struct's copy (its value witnesses or the
compiler's outlined copy) other than those that run once per run, thread or loop.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from cadence import _lib

#: A call of one of TimerQueues' value witnesses (``Vw..``) or outlined copy operations (``VWO.``).
COPY = re.compile(r"\bcall\s+\S+\s+<\$s7Cadence11TimerQueuesV(?:WO[A-Za-z]|w[A-Za-z]{2})>")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
#: The functions that may copy the queues: the witnesses themselves, and starting a run or a
#: thread, a custom mode's lookup and a loop's end, each once per call of a public function.
ALLOWED = (
    "$s7Cadence11TimerQueuesVW",
    "$s7Cadence11TimerQueuesVw",
    "$s7Cadence4LoopC11startThread",
    "$s7Cadence4LoopC15modeIndexLocked",
    "$s7Cadence4LoopC8beginRun",
    "$s7Cadence4LoopCfd",
)
#: A per-timer function whose symbol must be there: without it the library has no local symbols
#: (stripped) and the check would find nothing.
ANCHOR = "$s7Cadence11TimerQueuesV8fireNext"


def copying_functions(disassembly: str) -> tuple[set[str], set[str]]:
    """The functions of ``disassembly`` (objdump -d) and those among them that copy the queues."""
    functions: set[str] = set()
    copying: set[str] = set()
    current = ""
    for line in disassembly.splitlines():
        if match := FUNCTION.match(line):
            current = match.group(1)
            functions.add(current)
        elif COPY.search(line):
            copying.add(current)
    return functions, copying


def library() -> Path:
    """The library the tests load (``CADENCE_LIBRARY``, else the build tree's, which keeps its
    local symbols; an installed wheel's is stripped, and ``make dist-check`` leaves this out)."""
    return Path(_lib.path)


def tool(name: str, *arguments: str) -> str:
    """The standard output of binutils' ``name`` run with ``arguments``."""
    path = shutil.which(name)
    assert path, f"{name} (binutils) is needed to read the library's machine code"
    return subprocess.run([path, *arguments], check=True, capture_output=True, text=True).stdout


def test_no_per_timer_path_copies_the_timer_queues() -> None:
    output = tool("objdump", "-d", "--no-show-raw-insn", str(library()))
    functions, copying = copying_functions(output)
    assert any(name.startswith(ANCHOR) for name in functions), (
        f"{library()} has no symbol {ANCHOR}...: stripped, or the function was renamed"
    )
    unexpected = sorted(name for name in copying if not name.startswith(ALLOWED))
    assert unexpected == [], (
        "these functions copy TimerQueues whole (every array retained and released); call "
        "mutating methods on it, or read the array you need, instead: " + ", ".join(unexpected)
    )


def test_the_check_finds_a_copy() -> None:
    """The parser on a made-up disassembly: a copy in a per-timer function, and one allowed."""
    text = """
00000000001914e0 <$s7Cadence11TimerQueuesV8fireNext2in3now4intoSbAC4PassV_s6UInt64VAC4FireVztF>:
  191685:\tcall   1b0a00 <$s7Cadence11TimerQueuesVWOc>
  19168a:\tprefetcht0 (%r15,%rbx,1)

00000000001a0000 <$s7Cadence4LoopC8beginRun4modeXYZ>:
  1a0010:\tcall   1b0a00 <$s7Cadence11TimerQueuesVwcp>
"""
    functions, copying = copying_functions(text)
    assert len(functions) == 2
    assert sorted(name for name in copying if not name.startswith(ALLOWED)) == [
        "$s7Cadence11TimerQueuesV8fireNext2in3now4intoSbAC4PassV_s6UInt64VAC4FireVztF"
    ]
