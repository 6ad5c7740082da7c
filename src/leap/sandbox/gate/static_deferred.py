"""Library compute that init or import code sets up but does not run: it would run later, in forward.

Init code (``__init__`` and what only it reaches) and import-time code may compute with numpy or PyTorch, to
build tables. What they may not do is hand the computation on unrun: a library function taken as a value
(``map(np.maximum, q)``, ``partial(np.maximum, 0)``, ``{"m": np.maximum}["m"]``, ``func=np.maximum``) or a
generator expression or lambda whose body calls one, kept past the statement (numpy and cupy: PyTorch's ops
are seen at run time wherever they run). Advanced or called in forward,
it computes there, and no candidate function starts that the child's init watch could see. Consumed in the
same statement (``list(map(np.exp2, e))``, ``for v in map(...)``, a comprehension, ``np.fromiter``,
``"-".join(...)``), it is init code like any other.
"""

from __future__ import annotations

import ast

from leap.sandbox.gate.static_index import ModuleIndex
from leap.sandbox.gate.static_plan import lookup
from leap.sandbox.gate.static_policy import Finding

CONSUMERS = frozenset({"list", "tuple", "set", "frozenset", "dict", "sorted", "sum", "min", "max", "any", "all",
                       "len", "numpy.array", "numpy.asarray", "numpy.fromiter", "numpy.stack", "numpy.concatenate",
                       "torch.tensor", "torch.as_tensor", "torch.stack", "torch.cat"})
EAGER = (ast.ListComp, ast.SetComp, ast.DictComp, ast.List, ast.Tuple, ast.Set, ast.Dict)


def deferred_problems(ix: ModuleIndex, roots: list[ast.AST]) -> list[Finding]:
    """Findings for library compute that ``roots`` (init and import code: function bodies, module-level
    statements) set up without running it in the same statement."""
    out: list[Finding] = []
    for root in roots:
        for stmt in _statements(root):
            out += _in_statement(ix, stmt)
    return out


def library_function(q: str | None) -> bool:
    """A numpy/cupy function or ufunc (not a type): host compute nothing at run time sees. PyTorch's are left
    to the kinds (a stored reference to a compute function is compute where it is called) and to the run-time
    checks, which see its ops wherever they run."""
    if not q or not q.startswith(("numpy.", "cupy.")):
        return False
    obj = lookup(q)
    return obj is None or (callable(obj) and not isinstance(obj, type))


def _statements(root: ast.AST):
    """Simple statements of ``root`` (nested compound statements' bodies included, nested defs not)."""
    todo = list(root.body) if isinstance(root, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module) else [root]
    while todo:
        s = todo.pop()
        if isinstance(s, ast.ClassDef) and s.name != "Model":  # class attributes are import-time code
            todo += [c for c in s.body if not isinstance(c, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield s
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo += [c for c in getattr(s, field, []) or [] if isinstance(c, ast.stmt | ast.excepthandler)]


def _in_statement(ix: ModuleIndex, stmt: ast.stmt) -> list[Finding]:
    parts = [stmt.iter] if isinstance(stmt, ast.For | ast.AsyncFor) else []  # a for loop consumes its iterable
    exprs = [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.expr)]
    parents = {id(c): p for e in exprs for p in ast.walk(e) for c in ast.iter_child_nodes(p)}
    calls = {id(n.func) for e in exprs for n in ast.walk(e) if isinstance(n, ast.Call)}
    out = []
    for e in exprs:
        for n in ast.walk(e):
            what = None
            if isinstance(n, ast.Name | ast.Attribute) and id(n) not in calls and not isinstance(
                    parents.get(id(n)), ast.Attribute) and library_function(ix.qualname(n)):
                what = f"{ix.qualname(n)} taken as a value"
            elif isinstance(n, ast.GeneratorExp | ast.Lambda) and _calls_library(ix, n):
                what = "a generator expression" if isinstance(n, ast.GeneratorExp) else "a lambda"
                what += " that calls a library function"
            if what and not _consumed(ix, n, parents, parts):
                out.append(Finding("deferred_compute", getattr(n, "lineno", stmt.lineno), getattr(n, "col_offset", 0),
                                   f"{what}, kept past this statement in init or import code: run later in "
                                   "forward it computes there (call the library here and keep the values)"))
    return out


def _calls_library(ix: ModuleIndex, node: ast.AST) -> bool:
    return any(isinstance(c, ast.Call) and library_function(ix.qualname(c.func)) for c in ast.walk(node))


def _consumed(ix: ModuleIndex, node: ast.AST, parents: dict, eager_roots: list) -> bool:
    """Whether the value of ``node`` is used up within the statement: it reaches an eager consumer (a call of
    `CONSUMERS`, ``str.join``, a comprehension's iterable, a display with it starred) or a for loop's
    iterable, going up through calls and subscripts that only wrap it (``zip``, ``enumerate``, ``map``)."""
    child, p = node, parents.get(id(node))
    while p is not None:
        if any(child is r for r in eager_roots):
            return True
        if isinstance(p, ast.Call) and child is not p.func:
            q = ix.qualname(p.func) or (p.func.id if isinstance(p.func, ast.Name) else "")
            if q in CONSUMERS or isinstance(p.func, ast.Attribute) and p.func.attr == "join":
                return True
        if isinstance(p, ast.comprehension) and child is p.iter:
            return isinstance(parents.get(id(p)), EAGER[:3]) or _consumed(ix, parents[id(p)], parents, eager_roots)
        if isinstance(p, ast.Starred) and isinstance(parents.get(id(p)), ast.List | ast.Tuple | ast.Set):
            return True
        if isinstance(p, ast.stmt):
            return False
        child, p = p, parents.get(id(p))
    return any(child is r for r in eager_roots)
