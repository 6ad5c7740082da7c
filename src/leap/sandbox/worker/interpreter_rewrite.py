"""Where Triton's CPU interpreter finds a kernel's ``def`` and where its rewrite puts its own code (CPU checks
only).

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
    """Patch the interpreter's ``FunctionRewriter._find_def`` and ``_transform_ast`` (once)."""
    from triton.runtime.interpreter import FunctionRewriter

    FunctionRewriter._find_def = lambda self, lines: def_line(lines, self.fn.__name__)
    FunctionRewriter._transform_ast = _transform_ast


def _transform_ast(self, src: str) -> ast.Module:
    """The interpreter's rewrite (``x = v`` to ``x = to_tensor(v)``, chained comparisons to wrapper calls; here
    also a runtime loop's variable made a tensor), its own nodes placed at the start of the node they stand in
    for: given the whole statement's span, Python ran their method calls on its last line and columns
    (`kernel_trace` then saw code the front end never compiled: a black-formatted ``x = tl.load(\n ...\n)``
    was refused)."""
    parsed = ast.parse(src)
    originals = list(ast.walk(parsed))  # alive until the end: their ids stay theirs
    known = {id(n) for n in originals}
    tree = self.ast_transformer.visit(parsed)
    for loop in [n for n in ast.walk(tree) if isinstance(n, ast.For) and _runtime_range(n)]:
        name = loop.target.id  # a runtime loop's variable is a tensor on a GPU: made one here too
        loop.body.insert(0, ast.Assign(targets=[ast.Name(name, ast.Store())], value=ast.Call(
            ast.Attribute(ast.Name("interpreter_semantic", ast.Load()), "to_tensor", ast.Load()),
            [ast.Name(name, ast.Load()), ast.Constant(False)], [])))
    tree = ast.fix_missing_locations(tree)
    for n in ast.walk(tree):
        if id(n) not in known and hasattr(n, "lineno"):
            n.end_lineno, n.end_col_offset = n.lineno, n.col_offset
    ast.increment_lineno(tree, self.def_file_lineno - 1)
    return tree


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


def _runtime_range(loop: ast.For) -> bool:
    """``for i in range(...)`` / ``tl.range(...)`` (not ``tl.static_range``): Triton compiles a loop whose
    variable is a tensor, where the interpreter hands out Python ints (a red-team pass, 2026-12-05, tested
    ``isinstance(i, int)`` and computed on the host with it)."""
    f = loop.iter.func if isinstance(loop.iter, ast.Call) else None
    return isinstance(loop.target, ast.Name) and (
        (isinstance(f, ast.Name) and f.id == "range") or (isinstance(f, ast.Attribute) and f.attr == "range"))
