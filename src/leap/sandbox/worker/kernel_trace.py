"""What Triton's front end compiled of a kernel, and a trace that holds the interpreter to it (CPU checks only).

`triton_frontend` compiles each launched kernel with Triton's front end; a `Recorder` notes, while it runs,
every AST node the code generator visits. A compile-time test (``x if C else y``, ``if C: ...``, ``a and b``,
a chained comparison, a comprehension's filter, a loop body) leaves the arm it did not take unvisited. Where
the interpreter evaluates that test differently (a value the two type differently), it runs the other arm, so
`traced` refuses any line the front end did not compile at all and, on a line that holds a skipped arm, any
instruction inside one: a red-team pass (2026-12-05) put a decoy and a host ``math`` payload on one line, and
a per-line trace counted the whole line as compiled. Comprehension frames run inside a kernel, and the raw
combine functions the interpreter's ``tl.reduce``/``tl.associative_scan`` call, are traced as part of it.

A value the two type differently can also steer without any skipped arm (``(0.5, v)[isinstance(c, float)]``):
the front end folds ``math.tanh(int(w * 2**40))`` to a constant where the interpreter computes it on data (a
red-team pass, 2026-12-05). So while a kernel runs, a Triton tensor turned into a Python value
(``__index__``, ``__bool__``, ``str``/``repr``) by the candidate's code is refused where the front end had a
compile-time constant at that expression, and anywhere in host functions the kernel calls.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from dataclasses import dataclass, field

from leap.sandbox.worker.interpreter_bf16 import patch_once

Span = tuple[int, int, int, int]  # first line, first column, last line, end column (file lines, 0-based columns)
Where = tuple[str, int | None]  # (file, line of the function's def)


@dataclass
class Coverage:
    """One function's share of a compile: the file lines the front end visited, the spans of the arms it
    skipped (by every line they touch) and the columns the interpreter's dedent removed from its source."""

    lines: set[int] = field(default_factory=set)
    skipped: dict[int, list[Span]] = field(default_factory=dict)
    shift: int = 0
    folded: dict[Span, bool] = field(default_factory=dict)  # expression -> every visit gave a constant
    folded_lines: dict[int, list[Span]] = field(default_factory=dict)  # those spans by every line they touch
    raw: object = None  # the function's own code object (the interpreter calls combine functions raw)


class Recorder:
    """Notes the nodes each code generator visits during one compile (`visit` stands in for
    ``CodeGenerator.visit``)."""

    def __init__(self) -> None:
        self.coverage: dict[Where, Coverage] = {}
        self.spans: dict[Where, set[Span]] = {}
        self.arms: list[tuple[Where, int, int, ast.AST]] = []
        self.visited: set[int] = set()
        self.keep: list[ast.AST] = []  # visited nodes stay alive, so their ids stay theirs

    def visit(self, gen, node, visit):
        """``visit(gen, node)`` (the code generator's own), noting the node, its lines and span, and for an
        expression whether the value it made is a compile-time constant."""
        line = getattr(node, "lineno", None)
        if line is None:
            return visit(gen, node)
        where = (gen.file_name, getattr(gen.jit_fn, "def_file_line_number", None))
        if where not in self.coverage:
            fn = getattr(gen.jit_fn, "fn", None)
            self.coverage[where] = Coverage(shift=interpreter_shift(fn), raw=getattr(fn, "__code__", None))
        cov = self.coverage[where]
        col = getattr(gen, "begin_col", 1) - 1
        # every line of an expression or simple statement (Python runs ``.attr`` and the interpreter's own calls
        # on their last lines); a compound statement's header line (its body's lines are its statements')
        last = line if isinstance(node, ast.stmt) and hasattr(node, "body") else node.end_lineno or line
        cov.lines.update(range(gen.begin_line + line, gen.begin_line + last + 1))
        s = span(node, gen.begin_line, col)
        self.spans.setdefault(where, set()).add(s)
        self.visited.add(id(node))
        self.keep.append(node)
        self.arms += [(where, gen.begin_line, col, arm) for arm in arms(node)]
        value = visit(gen, node)
        if isinstance(node, ast.expr):
            cov.folded[s] = cov.folded.get(s, True) and _constant(value)
        return value

    def result(self) -> dict[Where, Coverage]:
        """Each function's coverage, with the arms no specialisation visited."""
        for where, line0, col0, arm in self.arms:
            s = span(arm, line0, col0)
            if s in self.spans[where] or any(id(n) in self.visited for n in ast.walk(arm)):
                continue
            for ln in range(s[0], s[2] + 1):
                self.coverage[where].skipped.setdefault(ln, []).append(s)
        for cov in self.coverage.values():
            for s in cov.folded:
                for ln in range(s[0], s[2] + 1):
                    cov.folded_lines.setdefault(ln, []).append(s)
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


class _Launch:
    """One traced launch: the kernel frames running and what they may run."""

    def __init__(self, coverage: dict[Where, Coverage], filename: str) -> None:
        self.coverage, self.filename = coverage, filename
        self.stray: list[int] = []
        self.where_of: dict[int, tuple[Coverage, int]] = {  # code -> its coverage and column shift
            id(c.raw): (c, 0) for c in coverage.values() if c.raw is not None}
        self.live: set[int] = set()  # ids of the kernel frames now running
        self.positions: dict[int, list] = {}

    def position(self, frame) -> tuple[Coverage, tuple | None]:
        """The frame's coverage and its current instruction's span in file columns (None when unknown)."""
        cov, shift = self.where_of[id(frame.f_code)]
        code = frame.f_code
        if id(code) not in self.positions:
            self.positions[id(code)] = list(code.co_positions())
        line, end, col, end_col = self.positions[id(code)][frame.f_lasti // 2]
        if line is None or col is None or end is None or end_col is None:
            return cov, None
        return cov, (line, col + shift, end, end_col + shift)

    def converting(self, frame) -> None:
        """A Triton tensor is being turned into a Python value by ``frame``'s code."""
        if frame.f_code.co_filename != self.filename:
            return  # the interpreter's own code
        if id(frame) in self.live:
            cov, pos = self.position(frame)
            if pos is not None and _folded_at(cov, pos):
                self.refuse(pos[0])
            return
        up = frame.f_back
        while up is not None:  # a host function of the candidate's that a kernel called
            if id(up) in self.live:
                self.refuse(frame.f_lineno)
            up = up.f_back

    def refuse(self, line: int) -> None:
        """Note the first line that ran other code than the front end compiled, and stop the kernel there."""
        self.stray.append(line)
        raise _Stray(line)

    def constant_only(self, what: str, args) -> None:
        """``what`` (``tl.static_range``, ``tl.static_assert``) got a runtime tensor where the front end takes
        only compile-time constants: the two read a value differently."""
        import triton.language as tl

        if any(isinstance(a, tl.tensor) for a in args):
            frame = sys._getframe(2)
            while frame is not None and id(frame) not in self.live:
                frame = frame.f_back
            self.refuse(frame.f_lineno if frame is not None else 0)


class _Stray(Exception):
    """Raised into the kernel at the first stray line (the launch then ends; `traced` reports the line)."""


_ACTIVE: list[_Launch] = []


def traced(coverage: dict[Where, Coverage], filename: str, launch) -> int | None:
    """Run ``launch`` with a trace on the candidate's kernel frames (and comprehensions they run); the first
    line run that the front end did not compile, that runs an arm it skipped or that turns data into a Python
    value where the front end had a constant, or None."""
    run = _Launch(coverage, filename)

    def local(frame, event, arg):
        cov, _ = run.where_of[id(frame.f_code)]
        if event == "return":
            run.live.discard(id(frame))
        elif event == "line":
            if frame.f_lineno not in cov.lines:
                run.refuse(frame.f_lineno)
            frame.f_trace_opcodes = frame.f_lineno in cov.skipped
        elif event == "opcode":
            _, pos = run.position(frame)
            if pos is not None and _inside(pos, cov.skipped.get(pos[0], ())):
                run.refuse(pos[0])
        return local

    def trace(frame, event, arg):
        code = frame.f_code
        if code.co_filename != filename:
            return None
        if id(code) not in run.where_of:
            cov = coverage.get((filename, code.co_firstlineno))
            parent = frame.f_back
            if cov is not None:
                run.where_of[id(code)] = (cov, cov.shift)
            elif parent is not None and id(parent.f_code) in run.where_of and code.co_name.startswith("<"):
                run.where_of[id(code)] = run.where_of[id(parent.f_code)]  # a comprehension the kernel runs
            else:
                return None
        run.live.add(id(frame))
        return local

    was = sys.gettrace()
    _ACTIVE.append(run)
    sys.settrace(trace)
    try:
        launch()
    except Exception:  # the interpreter wraps `_Stray` in its own error
        if not run.stray:
            raise
    finally:
        sys.settrace(was)
        _ACTIVE.pop()
    return run.stray[0] if run.stray else None


@patch_once
def install() -> None:
    """Make the interpreter's tensor conversions to Python values (``__index__``, ``__bool__``, ``__str__``,
    ``__repr__``, patched in at each launch) report to the running launch first, and its ``tl.static_range``
    and ``tl.static_assert`` refuse runtime tensors, which the front end never passes them (once)."""
    from triton.runtime import interpreter

    patch = interpreter._patch_lang_tensor

    core = interpreter._patch_lang_core

    def patched(tensor, scope):
        patch(tensor, scope)
        for name in ("__index__", "__bool__", "__str__", "__repr__"):
            scope.set_attr(tensor, name, _reporting(getattr(tensor, name)))

    def patched_core(lang, scope):
        core(lang, scope)
        for name in ("static_range", "static_assert"):
            scope.set_attr(lang, name, _constant_only(f"tl.{name}", getattr(lang, name)))

    interpreter._patch_lang_tensor = patched
    interpreter._patch_lang_core = patched_core


def _reporting(convert):
    def call(self, *args):
        if _ACTIVE:
            _ACTIVE[-1].converting(sys._getframe(1))
        return convert(self, *args)

    return call


def _constant_only(what: str, fn):
    def call(*args, **kwargs):
        if _ACTIVE:
            _ACTIVE[-1].constant_only(what, (*args, *kwargs.values()))
        return fn(*args, **kwargs)

    return call


def _inside(pos: tuple, spans) -> bool:
    line, col, end, end_col = pos
    return any((line, col) >= (s[0], s[1]) and (end, end_col) <= (s[2], s[3]) for s in spans)


def _folded_at(cov: Coverage, pos: tuple) -> bool:
    """Whether the innermost expression around ``pos`` that the front end evaluated was a constant each time."""
    around = [s for s in cov.folded_lines.get(pos[0], ()) if _inside(pos, (s,))]
    if not around:
        return False
    return cov.folded[max(around, key=lambda s: (s[0], s[1], -s[2], -s[3]))]  # nested: the latest start


def _constant(value) -> bool:
    """A value the front end computed at compile time (a Python number or string, a constexpr, a dtype)."""
    import triton.language as tl

    return isinstance(value, int | float | bool | str | tl.constexpr | tl.dtype)
