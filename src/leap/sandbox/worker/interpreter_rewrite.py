"""Where Triton's CPU interpreter finds a kernel's ``def`` (CPU checks only).

The interpreter re-reads a kernel's source and starts at the *last* line that begins with ``def `` — one
inside a docstring, or a nested function in a dead branch, so it ran other code than Triton's front end
compiles (a red-team pass, 2026-12-05, hid a numpy body that way), and a docstring with an example ``def``
broke honest kernels. `install` makes it take the line of the function's own ``def`` statement, found by
parsing the source as the front end does. Installed by the harness before candidate code runs, in
interpreter mode only.
"""

from __future__ import annotations

import ast
import textwrap

from leap.sandbox.worker.interpreter_bf16 import patch_once


@patch_once
def install() -> None:
    """Patch the interpreter's ``FunctionRewriter._find_def`` (once)."""
    from triton.runtime.interpreter import FunctionRewriter

    FunctionRewriter._find_def = lambda self, lines: def_line(lines, self.fn.__name__)


def def_line(lines: list[str], name: str) -> int:
    """1-based line of the first top-level ``def name`` (decorators above it) in a function's source lines;
    0 when it cannot be found (the interpreter then starts at the top, where its parse fails)."""
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node.lineno
    return 0
