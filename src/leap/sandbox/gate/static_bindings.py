"""Names bound more than one way in one scope (rule ``rebinding``).

The data-path analysis resolves a bare name as an import, a kernel, a class or a ``def`` before any value
assigned to it, and ``self.name`` as a method before anything stored under that name: a later binding of
the same name (``pick = lambda t: t`` after ``def pick``, ``for pick in ...``, ``cdiv = ...`` after importing
it, a class-body ``pick = ...`` beside ``def pick``, ``self.pick = f`` in ``__init__``) would run while the
analysis reads the first. Such names are refused; binding a name twice the same way (two ``def``s, two
assignments) is followed as usual, and ``k = triton.jit(k)`` (decorating by a call) is allowed. A decorator of
the solution's own is such a second binding too (rule ``decorator``), unless it returns its argument.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from leap.sandbox.gate.static_index import JIT_DECORATORS, ModuleIndex
from leap.sandbox.gate.static_policy import Finding
from leap.sandbox.gate.static_scopes import own_nodes

_BUILTIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property"})
_ACCESSORS = frozenset({"setter", "getter", "deleter"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def rebinding_problems(ix: ModuleIndex) -> list[Finding]:
    out = _scope_problems(ix, ix.tree.body, "module") + _own_decorators(ix)
    for cls in (n for n in ast.walk(ix.tree) if isinstance(n, ast.ClassDef)):
        out += _scope_problems(ix, cls.body, f"class {cls.name}")
        out += _self_stores(ix, cls)
    return out


def _scope_problems(ix: ModuleIndex, body: list[ast.stmt], where: str) -> list[Finding]:
    kinds: dict[str, dict[str, ast.AST]] = {}
    for name, kind, node in _bindings(ix, body):
        kinds.setdefault(name, {}).setdefault(kind, node)
    out = []
    for name, seen in kinds.items():
        if len(seen) > 1 and set(seen) & {"def", "class", "import"}:
            node = max(seen.values(), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
            out.append(Finding("rebinding", getattr(node, "lineno", 0), getattr(node, "col_offset", 0),
                               f"{name} is bound both as {' and as '.join(sorted(seen))} in the {where} scope: "
                               "give each its own name"))
    return out


def _bindings(ix: ModuleIndex, body: list[ast.stmt]) -> Iterator[tuple[str, str, ast.AST]]:
    """(name, "def" | "class" | "import" | "value", node) for every binding made in this scope."""
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            yield stmt.name, "def", stmt
        elif isinstance(stmt, ast.ClassDef):
            yield stmt.name, "class", stmt
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for a in stmt.names:
                yield (a.asname or a.name.split(".")[0]), "import", stmt
        if isinstance(stmt, ast.Assign) and _jit_by_call(ix, stmt):
            continue  # k = triton.jit(k)
        for n in _scope_nodes(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
                yield n.id, "value", n
            elif isinstance(n, ast.alias) and not isinstance(stmt, ast.Import | ast.ImportFrom):
                yield (n.asname or n.name.split(".")[0]), "import", n
            elif isinstance(n, ast.MatchAs | ast.MatchStar) and n.name:
                yield n.name, "value", n


def _scope_nodes(stmt: ast.stmt) -> Iterable[ast.AST]:
    """The nodes of ``stmt`` that bind in the scope it stands in: not inside nested functions, lambdas or
    classes (their names and decorators do), nor a comprehension's own targets (its walrus does)."""
    todo: list[ast.AST] = [stmt]
    while todo:
        n = todo.pop()
        if n is not stmt and isinstance(n, _SCOPES):
            todo.extend([*n.decorator_list] if not isinstance(n, ast.Lambda) else [])
            continue
        if isinstance(n, _COMPREHENSIONS):
            todo.extend(x for x in ast.walk(n) if isinstance(x, ast.NamedExpr))
            continue
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):  # the statement itself
            todo.extend(n.decorator_list)
            continue
        yield n
        todo.extend(ast.iter_child_nodes(n))


def _jit_by_call(ix: ModuleIndex, stmt: ast.Assign) -> bool:
    v = stmt.value
    return (len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and isinstance(v, ast.Call)
            and ix.qualname(v.func) in JIT_DECORATORS and len(v.args) == 1 and isinstance(v.args[0], ast.Name)
            and v.args[0].id == stmt.targets[0].id)


def _self_stores(ix: ModuleIndex, cls: ast.ClassDef) -> list[Finding]:
    """``self.pick = ...`` in a method of a class (or of one of the solution's classes it derives from) that
    defines ``pick``."""
    methods = _methods(ix, cls, set())
    out = []
    for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        me = fn.args.args[0].arg if fn.args.args else None
        for n in ast.walk(fn):
            if (isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
                    and n.value.id == me and n.attr in methods):
                out.append(Finding("rebinding", n.lineno, n.col_offset,
                                   f"{me}.{n.attr} = ... replaces the method {n.attr} of class {cls.name}: "
                                   "give the value its own name"))
    return out


def _methods(ix: ModuleIndex, cls: ast.ClassDef, seen: set[str]) -> set[str]:
    seen.add(cls.name)
    out = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for b in cls.bases:
        if isinstance(b, ast.Name) and b.id in ix.classes and b.id not in seen:
            out |= _methods(ix, ix.classes[b.id], seen)
    return out


def _own_decorators(ix: ModuleIndex) -> list[Finding]:
    """``@deco def f`` binds ``f = deco(f)``: with a decorator of the solution's own (or any value that is not
    a library's decorator or staticmethod/classmethod/property), ``f`` is whatever ``deco`` returns, which the
    analysis does not follow (it reads ``f``'s own body). Of the solution's own, only a function that hands
    its argument back (a registry's ``register``) is allowed."""
    out = []
    for node in ast.walk(ix.tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for d in node.decorator_list:
            head = d.func if isinstance(d, ast.Call) else d
            if ix.qualname(head) is not None or (isinstance(head, ast.Attribute) and head.attr in _ACCESSORS):
                continue  # a library's decorator (each has its rules); a property accessor (rule property_setter)
            if isinstance(head, ast.Name) and head.id in _BUILTIN_DECORATORS and head.id not in ix.defined_names \
                    and head.id not in ix.module_names:
                continue
            if not (isinstance(d, ast.Name) and d.id in ix.functions and _returns_its_argument(ix.functions[d.id])):
                out.append(Finding("decorator", d.lineno, d.col_offset,
                                   f"@{ast.unparse(d)}: a decorator of the solution's own replaces {node.name} with "
                                   "what it returns; call the wrapper explicitly, or return the function unchanged"))
    return out


def _returns_its_argument(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
    if len(params) != 1:
        return False
    returns = [n for n in own_nodes(fn) if isinstance(n, ast.Return)]
    return bool(returns) and all(isinstance(r.value, ast.Name) and r.value.id == params[0] for r in returns)
