"""What Triton's front end compiled of a kernel, and a trace that holds the interpreter to it (CPU checks only).

`triton_frontend` compiles each launched kernel with Triton's front end; a `Recorder` notes, while it runs,
every AST node the code generator visits. A compile-time test (``x if C else y``, ``if C: ...``, ``a and b``,
a chained comparison, a comprehension's filter, a loop body) leaves the arm it did not take unvisited. Where
the interpreter evaluates that test differently (a value the two type differently), it runs the other arm, so
`traced` refuses any line the front end did not compile at all and, on a line that holds a skipped arm, any
instruction inside one: a red-team pass (2026-12-05) put a decoy and a host ``math`` payload on one line, and
a per-line trace counted the whole line as compiled. Comprehension frames run inside a kernel are traced as
part of it.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from dataclasses import dataclass, field

Span = tuple[int, int, int, int]  # first line, first column, last line, end column (file lines, 0-based columns)
Where = tuple[str, int | None]  # (file, line of the function's def)


@dataclass
class Coverage:
    """One function's share of a compile: the file lines the front end visited, the spans of the arms it
    skipped (by every line they touch) and the columns the interpreter's dedent removed from its source."""

    lines: set[int] = field(default_factory=set)
    skipped: dict[int, list[Span]] = field(default_factory=dict)
    shift: int = 0


class Recorder:
    """Notes the nodes each code generator visits during one compile (call `note` from ``CodeGenerator.visit``)."""

    def __init__(self) -> None:
        self.coverage: dict[Where, Coverage] = {}
        self.spans: dict[Where, set[Span]] = {}
        self.arms: list[tuple[Where, int, int, ast.AST]] = []
        self.visited: set[int] = set()
        self.keep: list[ast.AST] = []  # visited nodes stay alive, so their ids stay theirs

    def note(self, gen, node) -> None:
        line = getattr(node, "lineno", None)
        if line is None:
            return
        where = (gen.file_name, getattr(gen.jit_fn, "def_file_line_number", None))
        if where not in self.coverage:
            self.coverage[where] = Coverage(shift=interpreter_shift(getattr(gen.jit_fn, "fn", None)))
        col = getattr(gen, "begin_col", 1) - 1
        self.coverage[where].lines.add(gen.begin_line + line)
        self.spans.setdefault(where, set()).add(span(node, gen.begin_line, col))
        self.visited.add(id(node))
        self.keep.append(node)
        self.arms += [(where, gen.begin_line, col, arm) for arm in arms(node)]

    def result(self) -> dict[Where, Coverage]:
        """Each function's coverage, with the arms no specialisation visited."""
        for where, line0, col0, arm in self.arms:
            s = span(arm, line0, col0)
            if s in self.spans[where] or any(id(n) in self.visited for n in ast.walk(arm)):
                continue
            for ln in range(s[0], s[2] + 1):
                self.coverage[where].skipped.setdefault(ln, []).append(s)
        return self.coverage


def arms(node) -> list:
    """The parts of ``node`` a compile-time decision may leave unvisited."""
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.If | ast.For | ast.While):
        return [*node.body, *node.orelse]
    if isinstance(node, ast.BoolOp):
        return node.values[1:]
    if isinstance(node, ast.Compare):
        return list(node.comparators)
    if isinstance(node, ast.ListComp):
        return [node.elt, *(c for g in node.generators for c in g.ifs)]
    return []


def span(node, line0: int, col0: int) -> Span:
    return (line0 + node.lineno, col0 + node.col_offset, line0 + node.end_lineno, col0 + node.end_col_offset)


def interpreter_shift(fn) -> int:
    """Columns the interpreter's rewrite removes from ``fn``'s lines (it dedents the source from the ``def``)."""
    from leap.sandbox.worker.interpreter_rewrite import def_line

    try:
        lines, _ = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return 0
    src = lines[max(def_line(lines, fn.__name__), 1) - 1:]
    return len(src[0]) - len(textwrap.dedent("".join(src)).splitlines(True)[0])


def traced(coverage: dict[Where, Coverage], filename: str, launch) -> int | None:
    """Run ``launch`` with a trace on the candidate's kernel frames (and comprehensions they run); the first
    line run that the front end did not compile, or that runs an arm it skipped, or None."""
    stray: list[int] = []
    where_of: dict[int, Where] = {}
    positions: dict[int, list] = {}

    def local(frame, event, arg):
        cov = coverage[where_of[id(frame.f_code)]]
        if stray:
            return None
        if event == "line":
            if frame.f_lineno not in cov.lines:
                stray.append(frame.f_lineno)
            frame.f_trace_opcodes = frame.f_lineno in cov.skipped
        elif event == "opcode":
            code = frame.f_code
            if id(code) not in positions:
                positions[id(code)] = list(code.co_positions())
            line, end, col, end_col = positions[id(code)][frame.f_lasti // 2]
            if line is not None and col is not None and _inside((line, col + cov.shift, end, end_col + cov.shift),
                                                                 cov.skipped.get(line, ())):
                stray.append(line)
        return local

    def trace(frame, event, arg):
        code = frame.f_code
        if code.co_filename != filename:
            return None
        where = (filename, code.co_firstlineno)
        parent = frame.f_back
        if where not in coverage:  # a comprehension the kernel runs: part of the kernel
            if parent is None or id(parent.f_code) not in where_of or not code.co_name.startswith("<"):
                return None
            where = where_of[id(parent.f_code)]
        where_of[id(code)] = where
        return local

    was = sys.gettrace()
    sys.settrace(trace)
    try:
        launch()
    finally:
        sys.settrace(was)
    return stray[0] if stray else None


def _inside(pos: tuple, spans) -> bool:
    line, col, end, end_col = pos
    return any((line, col) >= (s[0], s[1]) and (end, end_col) <= (s[2], s[3]) for s in spans)
