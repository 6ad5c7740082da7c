"""Conditions that can never hold, for the static gate's data-path analysis: a kernel launched only under one
is no launch (``if n < 0: kernel[grid](...)`` with ``n = x.numel()`` never runs, so it cannot make the
candidate's PyTorch- or numpy-free forward).

`never(test, scope)` is True for a constant false test (``if False:``, ``if 0:``, ``not True``, an ``and``
with a part that never holds, an ``or`` of such parts) and for a comparison that no size can satisfy: a
size (``x.numel()``, ``x.shape[0]``, ``x.size(1)``, ``len(x)``, ``x.dim()``, a name every binding of which in
the function is a size, sums, products and floor quotients of sizes and non-negative constants) against a
constant below zero (``n < 0``, ``n <= -1``, ``n == -2``, ``0 > n``, ``-1 >= n``).

Pure functions of the AST. Taking a live branch for a dead one can only cost a candidate its launch (a
``no_kernel`` rejection), never let compute through.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from leap.sandbox.gate import static_scopes as S

_SIZE_METHODS = frozenset({"numel", "nelement", "size", "dim", "ndimension", "element_size"})
_SIZE_ATTRS = frozenset({"ndim", "nbytes", "itemsize"})
_SIZE_FUNCS = frozenset({"len", "cdiv", "next_power_of_2", "numel"})


def never(test: ast.expr, scope: S.Scope) -> bool:
    """Whether ``test`` can never be true (see the module's docstring)."""
    return _never(test, size_names(scope))


def empty(it: ast.expr) -> bool:
    """``for _ in it`` never runs its body: an empty literal, or a ``range`` of constants that is empty."""
    if isinstance(it, ast.List | ast.Tuple | ast.Set):
        return not it.elts
    if isinstance(it, ast.Constant):
        return isinstance(it.value, str | bytes) and not it.value
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords:
        nums = [_number(a) for a in it.args]
        if 1 <= len(nums) <= 3 and all(isinstance(n, int) for n in nums) and (len(nums) < 3 or nums[2] != 0):
            return len(range(*nums)) == 0
    return False


def _never(test: ast.expr, sizes: frozenset[str]) -> bool:
    if isinstance(test, ast.Constant):
        return not test.value
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Constant) and bool(test.operand.value)
    if isinstance(test, ast.BoolOp):
        parts = [_never(v, sizes) for v in test.values]
        return any(parts) if isinstance(test.op, ast.And) else all(parts)
    if isinstance(test, ast.NamedExpr):
        return _never(test.value, sizes)
    if isinstance(test, ast.Compare):
        sides = [test.left, *test.comparators]
        return any(_never_pair(a, op, b, sizes) for a, op, b in zip(sides, test.ops, sides[1:], strict=False))
    return False


def _never_pair(a: ast.expr, op: ast.cmpop, b: ast.expr, sizes: frozenset[str]) -> bool:
    """``a op b`` with one side a size and the other a constant no size reaches."""
    c = _number(b)
    if c is not None and is_size(a, sizes):
        return (isinstance(op, ast.Lt) and c <= 0) or (isinstance(op, ast.LtE | ast.Eq) and c < 0)
    c = _number(a)
    if c is not None and is_size(b, sizes):
        return (isinstance(op, ast.Gt) and c <= 0) or (isinstance(op, ast.GtE | ast.Eq) and c < 0)
    return False


def _number(e: ast.expr) -> float | None:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        v = _number(e.operand)
        return -v if v is not None else None
    if isinstance(e, ast.Constant) and isinstance(e.value, int | float) and not isinstance(e.value, bool):
        return e.value
    return None


def is_size(e: ast.expr, sizes: frozenset[str] | set[str]) -> bool:
    """``e`` is a size (never below zero); ``sizes`` are the names known to hold one."""
    if isinstance(e, ast.Name):
        return e.id in sizes
    if isinstance(e, ast.Call):
        f = e.func
        if isinstance(f, ast.Attribute) and f.attr in _SIZE_METHODS:
            return True
        name = S.callee_name(e)
        if name == "cdiv":
            return len(e.args) == 2 and all(is_size(a, sizes) or _nonneg(a) for a in e.args)
        return name in _SIZE_FUNCS
    if isinstance(e, ast.Attribute):
        return e.attr in _SIZE_ATTRS
    if isinstance(e, ast.Subscript):
        v = e.value
        return (isinstance(v, ast.Attribute) and v.attr == "shape") or (
            isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "size" and not v.args)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add | ast.Mult | ast.FloorDiv):
        sides = (e.left, e.right)
        return all(is_size(x, sizes) or _nonneg(x) for x in sides) and any(is_size(x, sizes) for x in sides)
    return False


def _nonneg(e: ast.expr) -> bool:
    c = _number(e)
    return c is not None and c >= 0


@lru_cache(maxsize=1024)
def size_names(scope: S.Scope) -> frozenset[str]:
    """Names every binding of which in ``scope`` is a size (parameters, loop targets and unpacking of anything
    but a literal tuple are not)."""
    binds: dict[str, list[ast.expr | None]] = {}
    for node in S.own_nodes(scope):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                pairs = [(t, node.value)]
                if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(t.elts) == len(node.value.elts):
                    pairs = list(zip(t.elts, node.value.elts, strict=True))  # rows, cols = a, b
                for tt, v in pairs:
                    for n in _names(tt):
                        binds.setdefault(n, []).append(v if isinstance(tt, ast.Name) else None)
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr | ast.AugAssign):
            value = node.value if not isinstance(node, ast.AugAssign) else (
                node.value if isinstance(node.op, ast.Add | ast.Mult | ast.FloorDiv) else None)
            for n in _names(node.target):
                binds.setdefault(n, []).append(value)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension | ast.withitem):
            target = node.optional_vars if isinstance(node, ast.withitem) else node.target
            for n in _names(target):
                binds.setdefault(n, []).append(None)
    if not isinstance(scope, ast.Module):
        a = scope.args
        for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if x is not None:
                binds.setdefault(x.arg, []).append(None)
    known: set[str] = set()
    changed = True
    while changed:  # a size from other sizes (n = rows * cols)
        changed = False
        for n, values in binds.items():
            if n not in known and all(v is not None and is_size(v, known) for v in values):
                known.add(n)
                changed = True
    return frozenset(known)


def _names(t: ast.AST | None) -> set[str]:
    if isinstance(t, ast.Name):
        return {t.id}
    if isinstance(t, ast.Tuple | ast.List):
        return set().union(*(_names(x) for x in t.elts)) if t.elts else set()
    if isinstance(t, ast.Starred):
        return _names(t.value)
    return set()
