#!/usr/bin/env python3
"""Counts the code lines of a Python package: every line that holds a token of code, leaving
out blank lines, comments and docstrings (the string that opens a module, class or function).

    scripts/python-code-lines.py [DIR] [--max N]

DIR defaults to the binding's package, bindings/python/src/cadence. Prints one line per file
and the total; with --max, exits with status 1 when the total is above N (the test suite holds
the package to its budget this way).
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "bindings/python/src/cadence"
NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}


def docstring_lines(tree: ast.Module) -> set[int]:
    """The line numbers covered by docstrings."""
    lines: set[int] = set()
    scopes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(tree):
        if isinstance(node, scopes) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def code_lines(path: Path) -> int:
    """How many lines of `path` hold code."""
    source = path.read_text(encoding="utf-8")
    skip = docstring_lines(ast.parse(source, str(path)))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in NOT_CODE:
            lines.update(n for n in range(token.start[0], token.end[0] + 1) if n not in skip)
    return len(lines)


def main() -> int:
    """Prints the counts; the exit status says whether the total is within --max."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=PACKAGE)
    parser.add_argument("--max", type=int, help="fail (status 1) when the total is above this")
    args = parser.parse_args()
    total = 0
    for path in sorted(args.directory.rglob("*.py")):
        count = code_lines(path)
        total += count
        print(f"{count:6d}  {path.relative_to(args.directory)}")
    print(f"{total:6d}  total")
    if args.max is not None and total > args.max:
        print(f"over the budget of {args.max} lines by {total - args.max}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
