"""Triton launches for the data-path analysis: what each kernel parameter is launched with, and what a
launch grid or heuristic reads from Triton's meta dict.

Under the CPU interpreter a ``tl.constexpr`` argument (and any argument that is not a tensor or an int)
reaches the kernel body, and the grid, unconverted; so a ``tl.constexpr`` parameter may only get a Python
constant or a kernel, and no parameter may get a Python object (a function, a module, an instance, a
container) — rule ``kernel_args``. ``meta["NAME"]`` in a grid is then a constant for a ``tl.constexpr``
parameter and otherwise the join of everything the kernels were launched with under that name.

An autotuner's ``prune_configs_by={"early_config_prune": f}`` is called at launch with the configs (library
objects) and the same bound-arguments dict, a ``perf_model`` with each bound argument and config value as a
keyword: `prune_hooks` finds such functions, so the analysis gives their parameters those kinds instead of
"anything" (`PRUNE_CONFIGS`, a meta dict, `meta_value` by name).
"""

from __future__ import annotations

import ast

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate.static_analysis import Analysis
from leap.sandbox.gate.static_callargs import CallArgs
from leap.sandbox.gate.static_index import ModuleIndex
from leap.sandbox.gate.static_kinds import OPAQUE, SCALAR, UNKNOWN, UNSET, Kind, Tag, items, merge

_CONSTEXPR_OK = (Tag.SCALAR, Tag.NONE, Tag.JIT, Tag.UNSET)
_ARG_OK = (Tag.TENSOR, Tag.UNKNOWN, Tag.UNSET, Tag.SCALAR, Tag.NONE, Tag.JIT)
PRUNE_CONFIGS = items(OPAQUE)  # an early_config_prune function's first parameter: a list of triton.Config


def prune_hooks(ix: ModuleIndex, slot: str = "early_config_prune") -> tuple[set[int], set[str]]:
    """The lambdas (by id) and module-level functions (by name) given as ``slot`` (``early_config_prune``,
    ``perf_model``) in a literal ``prune_configs_by`` dict of ``triton.autotune``; a function named anywhere
    else too is not one."""
    lambdas: set[int] = set()
    slots: set[int] = set()
    names: set[str] = set()
    for node in ast.walk(ix.tree):
        if not (isinstance(node, ast.Call) and ix.qualname(node.func) == "triton.autotune"):
            continue
        for kw in node.keywords:
            if kw.arg != "prune_configs_by" or not isinstance(kw.value, ast.Dict):
                continue
            for key, v in zip(kw.value.keys, kw.value.values, strict=True):
                if not (isinstance(key, ast.Constant) and key.value == slot):
                    continue
                if isinstance(v, ast.Lambda):
                    lambdas.add(id(v))
                elif isinstance(v, ast.Name):
                    names.add(v.id)
                    slots.add(id(v))
    defined = {n.name for n in ix.tree.body if isinstance(n, ast.FunctionDef)}
    for node in ast.walk(ix.tree):  # named elsewhere (called, stored, rebound): analysed as before
        if isinstance(node, ast.Name) and node.id in names and id(node) not in slots:
            names.discard(node.id)
    return lambdas, names & defined


def meta_value(dp: Analysis, meta: Kind, key: str) -> Kind:
    """Kind of ``meta[key]`` for the kernels ``meta`` names (every kernel of the file when not known; a
    kernel without that parameter cannot be the one launched)."""
    out = UNSET
    for name in meta.names or tuple(dp.sigs):
        sig = dp.sigs.get(name)
        if sig is None:
            return UNKNOWN
        if key in sig.constexpr:
            out = merge(out, SCALAR)
        elif key in sig.params:  # before the launch options: a parameter may be named like one (maxnreg)
            got = merge(dp.kargs.get((name, key)), dp.kargs.get((name, "*")))
            out = merge(out, UNKNOWN if got == UNSET else got)
        elif key in T.TRITON_LAUNCH_OPTIONS:
            out = merge(out, SCALAR)
        elif meta.names:
            out = merge(out, UNKNOWN)
    return UNKNOWN if out == UNSET else out


def check_launch(dp: Analysis, node: ast.AST, kernels: tuple[str, ...], args: CallArgs, skip: int = 0) -> None:
    """Record what each parameter of the launched kernels gets; refuse a possible tensor or a Python
    object for a ``tl.constexpr`` parameter, and a Python object for any parameter."""
    names = kernels or tuple(dp.sigs)
    for name in names:
        sig = dp.sigs.get(name)
        if sig is None:
            for k in args.kinds():
                _check(dp, node, name or "?", "?", k, constexpr=False)
            continue
        bound: dict[str, Kind] = {}
        params = sig.params[skip:]
        for p, k in zip(params, args.pos, strict=False):
            bound[p] = k
        for p, k in args.kw.items():
            if p in sig.params:
                bound[p] = merge(bound.get(p, UNSET), k)
        for p in params[len(args.pos):]:
            if p not in args.kw:
                for pack in (args.star, args.kwstar):
                    if pack is not None:
                        bound[p] = merge(bound.get(p, UNSET), pack)
        for p, k in bound.items():
            dp.kargs.add((name, p), k)
            _check(dp, node, name, p, k, constexpr=p in sig.constexpr)
        for p, k in args.kw.items():  # launch options (num_warps, ...): constants
            if p not in sig.params:
                _check(dp, node, name, p, k, constexpr=True)


def _check(dp: Analysis, node: ast.AST, kernel: str, param: str, k: Kind, constexpr: bool) -> None:
    if constexpr and (k.maybe_tensor or k.tag not in _CONSTEXPR_OK):
        dp.flag(node, f"argument {param} of kernel {kernel} is tl.constexpr: it must be a Python constant "
                      f"(number, string, dtype) or a kernel, not a value of kind {k.tag.value}", "kernel_args")
    elif not constexpr and k.tag not in _ARG_OK:
        dp.flag(node, f"argument {param} of kernel {kernel} gets a Python object or container (kind "
                      f"{k.tag.value}): a kernel takes tensors, numbers and kernels", "kernel_args")
