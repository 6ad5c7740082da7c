"""Kernels that look the answer up instead of computing it (rule ``table_lookup``).

A table of the task's function (every fp16/bf16 bit pattern, or a fine grid to interpolate on) can be built
where computing is allowed (PyTorch in ``__init__``, Python ``math`` at import), leaving the kernel only to
turn each input value into an index and gather. Such a kernel reinterprets values it loaded as integers: by
a bitcast, or by converting the result of arithmetic on them to an integer type. An index loaded from memory
(a gather, an embedding) and widened (``idx.to(tl.int64)``) is not that, nor are indices computed from
program ids and offsets. The analysis is per kernel and flow-insensitive; a value that goes through memory
between two kernels is not followed (see docs/THREAT_MODEL.md, "Lookup tables").
"""

from __future__ import annotations

import ast

from leap.sandbox.gate.static_index import ModuleIndex

_INT_TYPES = frozenset(f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64))
# reads: loads, and atomics (they return the old value: an atomic add of 0 reads the table)
_MEMORY = frozenset({"load", "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas",
                     "atomic_and", "atomic_or", "atomic_xor"})


def _is_load(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load"


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _from_memory(node: ast.AST, loaded: set[str]) -> bool:
    return any(_is_load(n) for n in ast.walk(node)) or _mentions(node, loaded)


def _int_type(node: ast.AST | None) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in _INT_TYPES
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.split(".")[-1] in _INT_TYPES
    return False


_FLOAT_FUNCS = frozenset({"exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "floor", "ceil", "fdiv",
                          "div_rn", "sin", "cos", "sigmoid", "erf", "tanh", "abs", "fabs", "fma", "pow"})


def _floaty(node: ast.AST, fmem: set[str]) -> bool:
    """Arithmetic that makes or keeps floating-point values: a float literal, true division, a float function
    of Triton or math, or a name already holding such values computed from memory."""
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, float):
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _FLOAT_FUNCS:
            return True
        if isinstance(n, ast.Name) and n.id in fmem:
            return True
    return False


def _reinterpreted(node: ast.AST, loaded: set[str], fmem: set[str], keys: set[str]) -> bool:
    """``node`` holds loaded values turned into integers: by a bitcast, or by an integer conversion of
    floating-point arithmetic on them (or it names a value already known to hold such keys)."""
    if _mentions(node, keys):
        return True
    for n in ast.walk(node):
        if not isinstance(n, ast.Call) or not isinstance(n.func, ast.Attribute) or n.func.attr not in ("to", "cast"):
            continue
        if n.func.attr == "cast" and len(n.args) >= 2:  # tl.cast(x, dtype, bitcast=...)
            operand, dtype = n.args[0], n.args[1]
        else:  # x.to(dtype, bitcast=...), x.cast(dtype)
            operand = n.func.value
            dtype = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == "dtype"), None)
        if not _from_memory(operand, loaded):
            continue
        bitcast = any(k.arg == "bitcast" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                      for k in n.keywords)
        if bitcast or (_int_type(dtype) and _floaty(operand, fmem)):
            return True
    return False


def table_lookups(ix: ModuleIndex, bodies: list[ast.FunctionDef]) -> list[tuple[int, int, str]]:
    """(line, column, message) for each memory access whose address comes from reinterpreted input values."""
    del ix  # names are matched syntactically (tl.load, .to(...), tl.int16, ...)
    out: list[tuple[int, int, str]] = []
    for fn in bodies:
        assigns = [(t, n.value) for n in ast.walk(fn) if isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign)
                   and n.value is not None
                   for t in (n.targets if isinstance(n, ast.Assign) else [n.target])]
        loaded: set[str] = set()  # names holding values from memory (or computed from them)
        fmem: set[str] = set()  # ... computed from them with floating-point arithmetic
        keys: set[str] = set()  # ... turned into integers (bitcast, or int conversion of such arithmetic)
        changed = True
        while changed:
            changed = False
            for target, value in assigns:
                names = {x.id for x in ast.walk(target) if isinstance(x, ast.Name)}
                for bucket, holds in ((loaded, _from_memory(value, loaded)),
                                      (fmem, _from_memory(value, loaded) and _floaty(value, fmem)),
                                      (keys, _reinterpreted(value, loaded, fmem, keys))):
                    if holds and not names <= bucket:
                        bucket |= names
                        changed = True
        for n in ast.walk(fn):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _MEMORY
                    and n.args and _reinterpreted(n.args[0], loaded, fmem, keys)):
                out.append((n.lineno, n.col_offset, f"in kernel {fn.name}: the address of this "
                            f"{n.func.attr} comes from input values reinterpreted as integers (a lookup table of "
                            "the answer, not a computation)"))
    return out
