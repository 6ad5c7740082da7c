"""Triton launches for the data-path analysis: what each kernel parameter is launched with, and what a
launch grid or heuristic reads from Triton's meta dict.

Under the CPU interpreter a ``tl.constexpr`` argument (and any argument that is not a tensor or an int)
reaches the kernel body, and the grid, unconverted; so a ``tl.constexpr`` parameter may only get a Python
constant or a kernel, and no parameter may get a Python object (a function, a module, an instance, a
container) — rule ``kernel_args``. ``meta["NAME"]`` in a grid is then a constant for a ``tl.constexpr``
parameter and otherwise the join of everything the kernels were launched with under that name.
"""

from __future__ import annotations

import ast

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate.static_analysis import Analysis
from leap.sandbox.gate.static_callargs import CallArgs
from leap.sandbox.gate.static_kinds import SCALAR, UNKNOWN, UNSET, Kind, Tag, merge

_CONSTEXPR_OK = (Tag.SCALAR, Tag.NONE, Tag.JIT, Tag.UNSET)
_ARG_OK = (Tag.TENSOR, Tag.UNKNOWN, Tag.UNSET, Tag.SCALAR, Tag.NONE, Tag.JIT)


def meta_value(dp: Analysis, meta: Kind, key: str) -> Kind:
    """Kind of ``meta[key]`` for the kernels ``meta`` names (every kernel of the file when not known; a
    kernel without that parameter cannot be the one launched)."""
    out = UNSET
    for name in meta.names or tuple(dp.sigs):
        sig = dp.sigs.get(name)
        if sig is None:
            return UNKNOWN
        if key in sig.constexpr or key in T.TRITON_LAUNCH_OPTIONS:
            out = merge(out, SCALAR)
        elif key in sig.params:
            got = merge(dp.kargs.get((name, key)), dp.kargs.get((name, "*")))
            out = merge(out, UNKNOWN if got == UNSET else got)
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
