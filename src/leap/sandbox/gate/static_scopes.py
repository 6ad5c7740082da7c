"""Syntactic facts about scopes for the static gate's data-path analysis: the names a function binds,
declares ``global``/``nonlocal``, whether it yields, and which names may share one container (alias
groups), so that a tensor stored into a container through one name reaches every name that shares it.

All functions here are pure: they read the AST and return sets and maps.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from leap.sandbox.gate import static_gate_tables as T

Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# Calls whose result is a fresh Python scalar: never the same object as an argument.
_SCALAR_CALLS = frozenset({"len", "int", "float", "bool", "str", "repr", "format", "round", "abs", "hash", "ord",
                           "chr", "isinstance", "issubclass", "hasattr", "callable", "range", "print", "divmod",
                           "pow", "min", "max", "sum", "cdiv", "next_power_of_2"})
_STORING = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})


def own_nodes(scope: Scope | ast.ClassDef):
    """The nodes of ``scope``'s own body (a class's too): nested functions, lambdas and classes are not entered
    (their decorators and defaults are, since they run in this scope)."""
    body = [scope.body] if isinstance(scope, ast.Lambda) else list(scope.body)
    todo = list(reversed(body))
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            todo.extend([*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d)])
            continue
        if isinstance(node, ast.Lambda):
            todo.extend([*node.args.defaults, *(d for d in node.args.kw_defaults if d)])
            continue
        if isinstance(node, ast.ClassDef):
            todo.extend([*node.decorator_list, *node.bases])
            continue
        todo.extend(reversed(list(ast.iter_child_nodes(node))))


@lru_cache(maxsize=4096)
def _facts(scope: Scope) -> tuple[frozenset[str], frozenset[str], frozenset[str], bool]:
    glob, nonloc, stores, yields = set(), set(), set(), False
    for node in own_nodes(scope):
        if isinstance(node, ast.Global):
            glob.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nonloc.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            stores.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stores.add(node.name)
        elif isinstance(node, ast.Yield | ast.YieldFrom):
            yields = True
        elif isinstance(node, ast.Import | ast.ImportFrom):
            stores.update((a.asname or a.name).split(".")[0] for a in node.names)
    if not isinstance(scope, ast.Module):
        a = scope.args
        stores.update(x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None)
    return frozenset(glob), frozenset(nonloc), frozenset(stores - glob - nonloc), yields


def globals_of(scope: Scope) -> frozenset[str]:
    """Names ``scope`` declares ``global``."""
    return _facts(scope)[0]


def nonlocals_of(scope: Scope) -> frozenset[str]:
    """Names ``scope`` declares ``nonlocal``."""
    return _facts(scope)[1]


def locals_of(scope: Scope) -> frozenset[str]:
    """Names bound in ``scope`` itself (parameters included, global/nonlocal declarations excluded)."""
    return _facts(scope)[2]


def yields(scope: Scope) -> bool:
    """Whether ``scope`` is a generator (its calls return an iterator of whatever it yields)."""
    return _facts(scope)[3]


def sources(e: ast.AST | None) -> set[str]:
    """Names (and ``name.attr`` paths) whose object the value of ``e`` may be, or contain."""
    if e is None or isinstance(e, ast.Constant | ast.JoinedStr | ast.Compare | ast.UnaryOp | ast.Lambda):
        return set()
    if isinstance(e, ast.Name):
        return {e.id}
    if isinstance(e, ast.Attribute):
        path = dotted(e)
        return ({path} if path else set()) | sources(e.value)
    if isinstance(e, ast.Call):
        f = e.func
        last = callee_name(e)
        if last in _SCALAR_CALLS or last in T.TENSOR_SCALAR_METHODS:
            return set()
        out = sources(f.value) if isinstance(f, ast.Attribute) else set()
        for a in [*e.args, *(k.value for k in e.keywords)]:
            out |= sources(a)
        return out
    if isinstance(e, ast.Subscript):  # an element or a slice of the container; the index is not in it
        return sources(e.value)
    if isinstance(e, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        out = set()
        for g in e.generators:
            out |= sources(g.iter)
        return out
    out = set()
    for child in ast.iter_child_nodes(e):
        out |= sources(child)
    return out


def dotted(e: ast.AST) -> str:
    """``a.b`` for an attribute of a plain name, else ""."""
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name):
        return f"{e.value.id}.{e.attr}"
    return ""


def _targets(t: ast.AST) -> set[str]:
    if isinstance(t, ast.Name):
        return {t.id}
    if isinstance(t, ast.Tuple | ast.List):
        return set().union(*(_targets(x) for x in t.elts)) if t.elts else set()
    if isinstance(t, ast.Starred):
        return _targets(t.value)
    if isinstance(t, ast.Attribute):
        return {dotted(t)} - {""} | _root(t)
    if isinstance(t, ast.Subscript):
        return _root(t)
    return set()


def _root(e: ast.AST) -> set[str]:
    while isinstance(e, ast.Attribute | ast.Subscript):
        e = e.value
    return {e.id} if isinstance(e, ast.Name) else set()


@lru_cache(maxsize=4096)
def alias_groups(scope: Scope) -> dict[str, frozenset[str]]:
    """Names of ``scope`` that may refer to (or contain) the same mutable object, as a map name -> group.
    Links: assignments and walrus, loop and ``with`` targets, storing calls (``c.append(b)``), indexed or
    attribute stores, and call results (a function may return its argument); scalar calls do not link."""
    parent: dict[str, str] = {}

    def find(a: str) -> str:
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def link(names: set[str]) -> None:
        names = {n for n in names if n}
        if len(names) > 1:
            first, *rest = names
            for n in rest:
                parent[find(n)] = find(first)

    for node in own_nodes(scope):
        if isinstance(node, ast.Assign):
            link(set().union(*(_targets(t) for t in node.targets)) | sources(node.value))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
            link(_targets(node.target) | sources(node.value))
        elif isinstance(node, ast.NamedExpr):
            link(_targets(node.target) | sources(node.value))
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            link(_targets(node.target) | sources(node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            link(_targets(node.optional_vars) | sources(node.context_expr))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _STORING):
            link(sources(node.func.value) | set().union(*(sources(a) for a in [*node.args, *(k.value for k in node.keywords)]),
                                                         set()))
    groups: dict[str, set[str]] = {}
    for n in list(parent):
        groups.setdefault(find(n), set()).add(n)
    return {n: frozenset(groups[find(n)]) for n in parent}


_FRESH = frozenset({"list", "dict", "set", "tuple", "frozenset", "sorted", "reversed"})


@lru_cache(maxsize=4096)
def origins(scope: Scope) -> dict[str, frozenset[str]]:
    """For each name of ``scope``, the names its object may have come from (``b = a``, ``b = a[0]``,
    ``for b in a``), transitively; what is stored into it (``b.append(a)``) is not an origin."""
    edges: dict[str, set[str]] = {}
    for node in own_nodes(scope):
        pairs = []
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            pairs = [(node.target, node.value)]
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            pairs = [(node.target, node.iter)]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            pairs = [(node.optional_vars, node.context_expr)]
        for t, v in pairs:
            for n in _targets(t):
                edges.setdefault(n, set()).update(sources(v))
    out: dict[str, frozenset[str]] = {}
    for n in edges:
        seen, todo = set(), [n]
        while todo:
            m = todo.pop()
            for o in edges.get(m, ()):
                if o not in seen:
                    seen.add(o)
                    todo.append(o)
        out[n] = frozenset(seen)
    return out


@lru_cache(maxsize=4096)
def opaque_names(scope: Scope) -> frozenset[str]:
    """Names of ``scope`` bound (somewhere) to an object that may also be held where no name of this scope
    shows it: the result of a call (a function may return a global's list), a ``with`` target, a loop over
    a call's result. A tensor stored into such a container cannot be followed."""
    out: set[str] = set()
    for node in own_nodes(scope):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if _opaque(node.value):
                for t in targets:
                    out |= {n for n in _targets(t) if "." not in n}
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension) and _opaque(node.iter):
            out |= {n for n in _targets(node.target) if "." not in n}
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            out |= {n for n in _targets(node.optional_vars) if "." not in n}
    return frozenset(out)


def _opaque(e: ast.AST) -> bool:
    """A value that may be an object held elsewhere (not a literal, a name, an item or an attribute the
    alias groups follow, nor a fresh container or scalar from a builtin)."""
    if isinstance(e, ast.Call):
        f = e.func
        return not (isinstance(f, ast.Name) and (f.id in _FRESH or f.id in _SCALAR_CALLS)) and not _atomic(e)
    if isinstance(e, ast.IfExp):
        return _opaque(e.body) or _opaque(e.orelse)
    if isinstance(e, ast.BoolOp):
        return any(_opaque(v) for v in e.values)
    if isinstance(e, ast.Subscript | ast.Attribute | ast.Starred):
        return _opaque(e.value)
    return isinstance(e, ast.Yield | ast.YieldFrom | ast.Await)


@lru_cache(maxsize=4096)
def scalar_names(scope: Scope) -> frozenset[str]:
    """Names every binding of which in ``scope`` is a fresh scalar (a number from arithmetic, a length, a
    shape entry): a tensor stored into a container never reaches them, whatever they are linked to."""
    ok: dict[str, bool] = {}
    for node in own_nodes(scope):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            atomic = isinstance(node, ast.AugAssign) or _atomic(node.value)
            for t in targets:
                if isinstance(t, ast.Name):
                    ok[t.id] = ok.get(t.id, True) and atomic
                else:
                    for n in _targets(t):
                        ok[n] = ok.get(n, True) and atomic and not isinstance(t, ast.Attribute | ast.Subscript)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            rng = (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                   and node.iter.func.id == "range")
            for n in _targets(node.target):
                ok[n] = ok.get(n, True) and rng
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            for n in _targets(node.optional_vars):
                ok[n] = False
    if not isinstance(scope, ast.Module):
        a = scope.args
        for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if x is not None:
                ok[x.arg] = False
    return frozenset(n for n, v in ok.items() if v)


def _atomic(e: ast.AST | None) -> bool:
    if isinstance(e, ast.Constant | ast.BinOp | ast.UnaryOp | ast.Compare | ast.JoinedStr):
        return not isinstance(e, ast.Constant) or not isinstance(e.value, bytes)
    if isinstance(e, ast.Call):
        last = callee_name(e)
        return last in _SCALAR_CALLS or last in T.TENSOR_SCALAR_METHODS
    return False


def foreign_attr_stores(tree: ast.Module) -> frozenset[str]:
    """Attribute names the candidate stores on objects other than ``self``/``cls`` (``self.act.buf = t``,
    ``props.x = t``, ``setattr(layer, "eps", t)``): reading such a name off a library object (a layer, a
    device's properties, a number) may give back what was stored, whatever the object's own attributes are."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                out.add(node.attr)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr")
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            out.add(node.args[1].value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in T.ATTR_REGISTERS
              and not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls"))):
            name = node.args[0] if node.args else None  # layer.register_buffer("eps", t): layer.eps is t
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                out.add(name.value)
    return frozenset(out)


def binds(tree: ast.AST, name: str) -> bool:
    """Might the candidate bind ``name`` anywhere — an assignment, a match capture, an import alias, a
    parameter, a def, a loop/with/except target, a global declaration? Every mention but a plain read
    counts (conservative)."""
    return any(binding_mention(n, name) for n in ast.walk(tree))


def only_a_class(tree: ast.AST, name: str) -> bool:
    """Is ``name`` bound exactly once in the file, by a class statement (`binds`' mentions otherwise)?"""
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name]
    return len(classes) == 1 and not any(binding_mention(n, name) for n in ast.walk(tree) if n is not classes[0])


def binding_mention(n: ast.AST, name: str) -> bool:
    """Does node ``n`` bind ``name`` (anything but a plain read of it, conservatively)?"""
    if isinstance(n, ast.Name):
        return n.id == name and not isinstance(n.ctx, ast.Load)
    return any(v == name or isinstance(v, list) and name in v for _, v in ast.iter_fields(n))


def callee_name(call: ast.Call) -> str:
    """The last name of what ``call`` calls (``f`` of ``f(...)`` and of ``x.f(...)``), or ``""``."""
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"``: its body never runs under the judge, which imports the candidate under
    another name (unless the candidate binds ``__name__``: see `binds`)."""
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def plain_annotation(node: ast.AST) -> bool:
    """A type annotation made of names, attributes, subscripts and constants (no calls)."""
    return all(isinstance(n, ast.Name | ast.Attribute | ast.Subscript | ast.Constant | ast.Tuple | ast.BinOp
                          | ast.BitOr | ast.List | ast.expr_context) for n in ast.walk(node))
