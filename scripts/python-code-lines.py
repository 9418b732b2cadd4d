#!/usr/bin/env python3
"""Counts the code lines of the Python files under a folder (default: the package), leaving out
docstrings, comments and blank lines: the figure the Python package's size is given in.

Usage: python3 scripts/python-code-lines.py [FOLDER]
"""

import ast
import io
import sys
import tokenize
from pathlib import Path

SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
SKIPPED.add(tokenize.ENDMARKER)


def docstring_lines(tree: ast.AST) -> set[int]:
    """The lines of the docstrings of a module, its classes and its functions."""
    found: set[int] = set()
    for node in ast.walk(tree):
        kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        body = getattr(node, "body", None) if isinstance(node, kinds) else None
        first = body[0] if body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            if isinstance(first.value.value, str):
                found.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return found


def code_lines(path: Path) -> int:
    """Lines of ``path`` that hold a token of code."""
    source = path.read_text()
    skip = docstring_lines(ast.parse(source))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in SKIPPED:
            lines.update(n for n in range(token.start[0], token.end[0] + 1) if n not in skip)
    return len(lines)


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "bindings/python/src/cadence")
    print(sum(code_lines(path) for path in sorted(folder.rglob("*.py"))))
