"""Triton kernels for the static gate: each kernel's signature (parameter names, which are ``tl.constexpr``)
and the check of ``@triton.jit`` bodies.

Under the CPU interpreter a kernel body runs as plain Python, and its ``tl.constexpr`` arguments (and any
argument that is not a tensor or an int) reach it unconverted. So a body may use only Triton (``triton``,
``triton.language`` and its extras such as libdevice), ``math``, Python's simple builtins, its own
arguments, other kernels and module constants: no other module, no host function of the file, no mutable
global, no private attribute, no call of an argument that is not ``tl.constexpr``, and an argument that
is not ``tl.constexpr`` (a pointer, an int, a descriptor) may only be asked for its Triton attributes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate.static_index import ModuleIndex

_OK_ROOTS = ("triton", "math")
# Triton's host side (the interpreter, compiler, backends, tools): no kernel needs it, and its modules hold
# others (``triton.runtime.interpreter.textwrap``)
_HOST_SIDE = ("triton.runtime", "triton.compiler", "triton.backends", "triton.tools", "triton.testing",
              "triton.knobs", "triton._")


@dataclass(frozen=True)
class KernelSig:
    """A kernel's parameters in order and those annotated ``tl.constexpr``; ``node`` is its definition."""

    name: str
    params: tuple[str, ...]
    constexpr: frozenset[str]
    node: ast.FunctionDef


def kernel_sigs(ix: ModuleIndex) -> dict[str, KernelSig]:
    """Every kernel of the file by the name the analysis gives it: module-level ``@triton.jit`` functions,
    ``k = triton.jit(fn)``, and ``Cls.name`` for kernels defined in a class."""
    out: dict[str, KernelSig] = {}
    for name in ix.jit:
        fn = ix.functions.get(name)
        if fn is None:  # k = triton.jit(fn)
            fn = next((ix.functions.get(n.value.args[0].id) for n in ix.tree.body if isinstance(n, ast.Assign)
                       and isinstance(n.value, ast.Call) and n.value.args and isinstance(n.value.args[0], ast.Name)
                       and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)), None)
        if isinstance(fn, ast.FunctionDef):
            out[name] = _sig(name, fn, ix)
            if fn.name != name:  # the call's value is known by the function's name too (`qualified`)
                out.setdefault(fn.name, _sig(fn.name, fn, ix))
    for cname, cls in ix.classes.items():
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef) and (cname, stmt.name) in ix.jit_methods:
                out[f"{cname}.{stmt.name}"] = _sig(f"{cname}.{stmt.name}", stmt, ix)
    for name, fn in ix.nested_jit.items():  # made inside a function: known by its own name
        out.setdefault(name, _sig(name, fn, ix))
    return out


def _sig(name: str, fn: ast.FunctionDef, ix: ModuleIndex) -> KernelSig:
    args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    const = {a.arg for a in args if _is_constexpr(a.annotation, ix)}
    return KernelSig(name, tuple(a.arg for a in args), frozenset(const), fn)


def _is_constexpr(a: ast.AST | None, ix: ModuleIndex) -> bool:
    if isinstance(a, ast.Constant) and isinstance(a.value, str):
        return a.value.split(".")[-1] == "constexpr"
    q = ix.qualname(a) if a is not None else None
    return bool(q) and q.split(".")[-1] == "constexpr" or isinstance(a, ast.Name) and a.id == "constexpr"


def kernel_bodies(ix: ModuleIndex, sigs: dict[str, KernelSig]) -> list[ast.FunctionDef]:
    """The function definitions whose bodies are kernels (each once)."""
    seen: dict[int, ast.FunctionDef] = {id(s.node): s.node for s in sigs.values()}
    for name in ix.jit:
        fn = ix.functions.get(name)
        if isinstance(fn, ast.FunctionDef):
            seen.setdefault(id(fn), fn)
    return list(seen.values())


def module_constants(ix: ModuleIndex) -> frozenset[str]:
    """Module-level names bound exactly once, to a constant (numbers, strings, tuples of them, arithmetic
    on them, ``tl.constexpr(...)``, Triton dtypes, ``math`` values): the globals a kernel may read."""
    binds: dict[str, list[ast.AST]] = {}
    for node in ast.walk(ix.tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            binds.setdefault(node.id, []).append(node)
    declared_global = {n for node in ast.walk(ix.tree) if isinstance(node, ast.Global) for n in node.names}
    values: dict[str, ast.AST] = {}
    for node in ix.tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            values[node.target.id] = node.value
    module_level = {id(n) for stmt in ix.tree.body if not isinstance(stmt, ast.FunctionDef | ast.ClassDef)
                    for n in ast.walk(stmt)}
    once = {n for n in values if n not in declared_global
            and sum(1 for b in binds.get(n, []) if id(b) in module_level) == 1}
    consts: set[str] = set()
    changed = True
    while changed:
        changed = False
        for n in once - consts:
            if _const(values[n], ix, consts):
                consts.add(n)
                changed = True
    return frozenset(consts)


def _const(e: ast.AST, ix: ModuleIndex, consts: set[str]) -> bool:
    if isinstance(e, ast.Constant):
        return not isinstance(e.value, bytes)
    if isinstance(e, ast.Tuple):
        return all(_const(x, ix, consts) for x in e.elts)
    if isinstance(e, ast.UnaryOp):
        return _const(e.operand, ix, consts)
    if isinstance(e, ast.BinOp):
        return _const(e.left, ix, consts) and _const(e.right, ix, consts)
    if isinstance(e, ast.BoolOp | ast.Compare):
        return all(_const(x, ix, consts) for x in ast.iter_child_nodes(e) if isinstance(x, ast.expr))
    if isinstance(e, ast.Name) and e.id in consts:
        return True
    q = ix.qualname(e) if isinstance(e, ast.Name | ast.Attribute) else None
    if q is not None:
        return q.split(".")[0] in _OK_ROOTS and T.reentry(q) is None
    if isinstance(e, ast.Call):
        fq = ix.qualname(e.func)
        fn_ok = (fq is not None and fq.split(".")[0] in _OK_ROOTS and T.reentry(fq) is None) or (
            isinstance(e.func, ast.Name) and e.func.id in ("int", "float", "bool"))
        return fn_ok and all(_const(a, ix, consts) for a in [*e.args, *(k.value for k in e.keywords)])
    return False


def _root(e: ast.AST) -> str:
    """The name an attribute chain (``p.dtype.element_ty``, ``p[0].to``) starts from."""
    while isinstance(e, ast.Attribute | ast.Subscript | ast.Call):
        e = e.func if isinstance(e, ast.Call) else e.value
    return e.id if isinstance(e, ast.Name) else ""


def jit_problems(ix: ModuleIndex, sigs: dict[str, KernelSig]) -> list[tuple[int, int, str]]:
    """What each kernel body uses that a kernel may not (line, column, message)."""
    consts = module_constants(ix)
    kernels = set(ix.jit) | {fn.name for fn in kernel_bodies(ix, sigs)} | set(ix.constexpr_fns)
    out: list[tuple[int, int, str]] = []
    for fn in [*kernel_bodies(ix, sigs), *ix.constexpr_fns.values()]:
        params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg,
                                  fn.args.kwarg] if a is not None}
        sig = next((s for s in sigs.values() if s.node is fn), None)
        # a constexpr function's parameters are constexprs (Triton unwraps them before calling it)
        const = sig.constexpr if sig is not None else frozenset(params) if fn.name in ix.constexpr_fns \
            else frozenset()
        body = [n for stmt in fn.body for n in ast.walk(stmt)]
        local = params | {n.id for n in body if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        local |= {a.arg for n in body if isinstance(n, ast.Lambda | ast.FunctionDef)
                  for a in [*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs]}
        local |= {n.name for n in body if isinstance(n, ast.FunctionDef)}
        pointers = params - const
        parents = {id(c): p for p in body for c in ast.iter_child_nodes(p)}

        def bad(node: ast.AST, msg: str, fn=fn) -> None:
            out.append((getattr(node, "lineno", fn.lineno), getattr(node, "col_offset", 0),
                        f"in kernel {fn.name}: {msg}"))

        for node in body:
            if isinstance(node, ast.Global | ast.Nonlocal):
                bad(node, "global or nonlocal names")
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in local or node.id in kernels or node.id in consts or node.id in T.JIT_BUILTINS:
                    continue
                if _kernel_side(ix.qualname(node)):
                    continue
                parent = parents.get(id(node))
                if (node.id in ix.classes and isinstance(parent, ast.Attribute)
                        and (node.id, parent.attr) in ix.jit_methods):
                    continue
                bad(node, f"{node.id} is not Triton, math, a kernel, an argument or a module constant")
            elif isinstance(node, ast.Attribute):
                if node.attr.startswith("_") and not node.attr.startswith("__"):
                    bad(node, f"private attribute .{node.attr}")
                elif _root(node) in pointers and node.attr not in T.JIT_PARAM_ATTRS \
                        and not (_through_dtype(node) and node.attr in T.JIT_VALUE_ATTRS) \
                        and not (isinstance(node.value, ast.Call) and node.attr in T.JIT_VALUE_ATTRS):
                    # (``desc.load([...]).reshape(...)``: an attribute of what a call returned, a value)
                    bad(node, f"attribute .{node.attr} of argument {_root(node)} (not tl.constexpr)")
                elif not _triton_name(ix, node) and node.attr not in T.JIT_VALUE_ATTRS:
                    bad(node, f"attribute .{node.attr} (a value in a kernel offers only Triton's tensor and "
                              "dtype attributes)")
                if isinstance(node.ctx, ast.Store | ast.Del):
                    bad(node, "storing into an attribute")
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
                bad(node, "storing into an item")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in pointers:
                bad(node, f"calling argument {node.func.id} (not tl.constexpr)")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in local - params \
                    - _callable_locals(body):
                bad(node, f"calling local variable {node.func.id} (a kernel calls Triton, math, builtins and "
                          "kernels)")
            elif isinstance(node, ast.Call) and not isinstance(node.func, ast.Name | ast.Attribute):
                bad(node, "calling a computed value (a kernel calls Triton, math, builtins and kernels by name)")
            elif isinstance(node, ast.Call) and fn.name in ix.constexpr_fns and _language_call(ix, node, kernels):
                bad(node, f"constexpr function {fn.name} calls {ast.unparse(node.func)} (it runs on the host at "
                          "compile time on constexprs: Python, math and other constexpr functions only)")
    return out


def _language_call(ix: ModuleIndex, call: ast.Call, kernels: set[str]) -> bool:
    """``call`` reaches Triton's kernel language (``tl.load``) or a kernel: nothing a GPU compile lets a
    ``constexpr_function`` do; only a constexpr may be built."""
    if isinstance(call.func, ast.Name) and call.func.id in kernels and call.func.id not in ix.constexpr_fns:
        return True
    q = ix.qualname(call.func)
    return q is not None and q.startswith("triton.language") and q.split(".")[-1] != "constexpr"


def _triton_name(ix: ModuleIndex, node: ast.Attribute) -> bool:
    """``node`` names something of Triton or math (``tl.float32``, ``libdevice.exp``) or a kernel defined in
    a class (``Kernels.relu``), not an attribute of a value."""
    q = ix.qualname(node)
    if q is not None and q.split(".")[0] in _OK_ROOTS and T.reentry(q) is None:
        return _kernel_side(q)
    return isinstance(node.value, ast.Name) and (node.value.id, node.attr) in ix.jit_methods


def _kernel_side(q: str | None) -> bool:
    """``q`` is a name of Triton's kernel language or of math that re-enters no other module."""
    return q is not None and q.split(".")[0] in _OK_ROOTS and T.reentry(q) is None and not q.startswith(_HOST_SIDE)


def _through_dtype(node: ast.Attribute) -> bool:
    """``node`` asks a dtype for something (``x_ptr.dtype.element_ty.is_bf16``)."""
    e = node.value
    while isinstance(e, ast.Attribute | ast.Call):
        if isinstance(e, ast.Attribute) and e.attr in ("dtype", "element_ty"):
            return True
        e = e.func if isinstance(e, ast.Call) else e.value
    return False


def _callable_locals(body: list[ast.AST]) -> set[str]:
    """Functions and lambdas a kernel body defines itself (checked as part of the body), unless the name is
    also bound to something else."""
    lambdas = [t for n in body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda)
               for t in n.targets if isinstance(t, ast.Name)]
    names = {n.name for n in body if isinstance(n, ast.FunctionDef)} | {t.id for t in lambdas}
    rebound = {n.id for n in body if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
               and all(n is not t for t in lambdas)}
    return names - rebound
