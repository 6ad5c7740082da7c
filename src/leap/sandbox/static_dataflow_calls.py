"""Call handling for the data-path analysis: what a call returns, whether it is PyTorch compute,
and whether it launches a custom kernel (Triton ``k[grid](...)``, a ``load_inline`` extension function,
a cupy ``RawKernel`` or a cuda.core ``launch``)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from leap.sandbox import static_gate_tables as T
from leap.sandbox.static_dataflow import SCALAR, TENSOR, UNKNOWN, merge
from leap.sandbox.static_gate_tables import torch_category

if TYPE_CHECKING:
    from leap.sandbox.static_dataflow import DataPath

_LIST_LIKE = ("tensors",)


def call_kind(dp: DataPath, e: ast.Call, env: dict[str, str], stmt) -> str:
    f = e.func
    argk = [dp._kind(a, env, stmt) for a in e.args]
    kwk = {k.arg: dp._kind(k.value, env, stmt) for k in e.keywords}
    tensor_arg = any(k in (TENSOR, "tensors") for k in [*argk, *kwk.values()])
    if isinstance(f, ast.Subscript):  # kernel[grid](...)
        kb = dp._kind(f.value, env, stmt)
        dp._kind(f.slice, env, stmt)
        if kb == "jit":
            dp.launched.add("triton")
        return "none"
    if isinstance(f, ast.Name):
        if f.id in env:
            return _call_kind_of(dp, e, env[f.id], argk, tensor_arg)
        q = dp.ix.qualname(f)
        if q is not None:
            return _qualified(dp, e, q, argk, tensor_arg)
        if f.id in dp.ix.jit:
            return "none"
        if f.id in dp.ix.classes:
            return _class_call(dp, f.id, argk)
        if f.id in dp.ix.functions:
            return _user_call(dp, (None, f.id), argk, e)
        if f.id in dp.module_kinds:
            return _call_kind_of(dp, e, dp.module_kinds[f.id], argk, tensor_arg)
        return _builtin(dp, e, f.id, argk, tensor_arg)
    if isinstance(f, ast.Attribute):
        base = f.value
        if isinstance(base, ast.Name) and base.id == "self" and "self" not in env:
            cls = dp.cur_cls
            key = (cls, f.attr)
            if key in dp.funcs:
                return _user_call(dp, key, argk, e)
            return _call_kind_of(dp, e, dp.self_kinds.get(cls or "", {}).get(f.attr, UNKNOWN), argk, tensor_arg)
        q = dp.ix.qualname(f)
        if q is not None:
            return _qualified(dp, e, q, argk, tensor_arg)
        kb = dp._kind(base, env, stmt)
        return _method(dp, e, kb, f.attr, argk, kwk, tensor_arg, env, stmt)
    fk = dp._kind(f, env, stmt)
    return _call_kind_of(dp, e, fk, argk, tensor_arg)


def _call_kind_of(dp: DataPath, e: ast.Call, fk: str, argk: list[str], tensor_arg: bool) -> str:
    """Calling a value whose kind is ``fk``."""
    if fk.startswith("ref:"):
        return _qualified(dp, e, fk[4:], argk, tensor_arg)
    if fk == "jit":
        return "none"
    if fk.startswith("class:"):
        return _class_call(dp, fk[6:], argk)
    if fk.startswith("userfn:"):
        return _user_call(dp, (None, fk[7:]), argk, e)
    if fk.startswith("usermod:"):
        fwd = dp.funcs.get((fk[8:], "forward"))
        return fwd.ret if fwd is not None else UNKNOWN
    if fk.startswith("torchmod"):
        name = fk.split(":", 1)[1] if ":" in fk else "sequential"
        dp._compute(e, name, f"calling a torch.nn layer ({name})")
        return TENSOR
    if fk == "rawkernel":
        dp.launched.add("cuda_nvrtc")
        return "none"
    return UNKNOWN


def _class_call(dp: DataPath, cname: str, argk: list[str]) -> str:
    init = dp.funcs.get((cname, "__init__"))
    if init is not None:
        _propagate(init, argk)
    return f"usermod:{cname}"


def _user_call(dp: DataPath, key, argk: list[str], e: ast.Call) -> str:
    fn = dp.funcs[key]
    _propagate(fn, argk)
    return fn.ret


def _propagate(fn, argk: list[str]) -> None:
    names = fn.names[fn.offset:]
    for name, k in zip(names, argk, strict=False):
        if k in (TENSOR, SCALAR):
            fn.params[name] = merge(fn.params.get(name, UNKNOWN), k)


def _qualified(dp: DataPath, e: ast.Call, q: str, argk: list[str], tensor_arg: bool) -> str:
    root = q.split(".")[0]
    last = q.rsplit(".", 1)[-1]
    if root == "torch":
        return _torch_call(dp, e, q, last, argk)
    if root == "triton":
        return SCALAR if last in ("cdiv", "next_power_of_2") else UNKNOWN
    if root in ("cupy", "numpy"):
        if last in ("RawKernel", "ElementwiseKernel", "ReductionKernel"):
            return "rawkernel"
        if last == "RawModule":
            return "rawmodule"
        if last in ("asarray", "from_dlpack", "fromDlpack"):
            return TENSOR
        if tensor_arg and last not in T.ARRAY_LIB_SAFE:
            dp._compute(e, last, f"{q} on a tensor")
            return TENSOR
        return SCALAR if argk and all(k == SCALAR for k in argk) else UNKNOWN
    if root == "cuda":
        if last == "Program":
            return "program"
        if last == "launch":
            dp.launched.add("cuda_nvrtc")
            return "none"
        return UNKNOWN
    if root in ("math", "cmath", "operator"):
        if tensor_arg:
            dp._compute(e, last, f"{q} on a tensor")
            return TENSOR
        return SCALAR if root != "operator" or all(k == SCALAR for k in argk) else UNKNOWN
    return UNKNOWN


def _torch_call(dp: DataPath, e: ast.Call, q: str, last: str, argk: list[str]) -> str:
    if q == "torch.utils.cpp_extension.load_inline":
        cuda = next((k.value for k in e.keywords if k.arg == "cuda_sources"), None)
        if cuda is None and len(e.args) >= 3:
            cuda = e.args[2]
        empty = cuda is None or (isinstance(cuda, ast.Constant) and not cuda.value) or (
            isinstance(cuda, ast.List | ast.Tuple) and not cuda.elts)
        return "cppext" if empty else "ext"
    cat = torch_category(q)
    if cat in ("alloc", "view"):
        return TENSOR
    if cat == "dtype":
        return SCALAR
    if cat in ("query", "safe"):
        if last in ("Parameter", "Buffer"):
            return TENSOR
        if last in ("ModuleList", "Sequential", "ModuleDict"):
            return "torchmods" if any(k.startswith("torchmod") for k in argk) else UNKNOWN
        if last == "numel" or last.startswith("is_"):
            return SCALAR
        return UNKNOWN
    if cat == "module":
        if last == "Sequential":
            dp._compute(e, "sequential", "building torch.nn layers in the data path")
            return "torchmods"
        dp._compute(e, last.lower(), f"building a torch.nn layer ({last}) in the data path")
        return f"torchmod:{last.lower()}"
    dp._compute(e, last, q)
    return TENSOR


def _method(dp: DataPath, e: ast.Call, kb: str, attr: str, argk: list[str], kwk: dict[str, str],
            tensor_arg: bool, env, stmt) -> str:
    if kb == "ext":
        dp.launched.add("cuda_inline")
        return TENSOR
    if kb == "cppext":
        return TENSOR
    if kb == "rawmodule" and attr == "get_function":
        return "rawkernel"
    if kb == "program" and attr == "compile":
        return "ccmodule"
    if kb == "ccmodule" and attr == "get_kernel":
        return "cckernel"
    if kb.startswith("usermod:") or kb.startswith("class:"):
        cname = kb.split(":", 1)[1]
        key = (cname, attr)
        if key in dp.funcs:
            return _user_call(dp, key, argk, e)
        if attr == "apply":
            fwd = dp.funcs.get((cname, "forward"))
            return fwd.ret if fwd is not None and fwd.ret != UNKNOWN else TENSOR
        return UNKNOWN
    if kb.startswith("ref:"):
        return _qualified(dp, e, f"{kb[4:]}.{attr}", argk, tensor_arg)
    if kb.startswith("torchmod"):
        dp._compute(e, kb.split(":", 1)[-1], f"calling a torch.nn layer method ({attr})")
        return TENSOR
    if kb == TENSOR:
        return _tensor_method(dp, e, attr, argk, kwk)
    if kb == SCALAR:
        return SCALAR
    if kb in _LIST_LIKE and attr in ("append", "extend", "insert"):
        return "none"
    return UNKNOWN


def _tensor_method(dp: DataPath, e: ast.Call, attr: str, argk: list[str], kwk: dict[str, str]) -> str:
    if attr in T.TENSOR_SCALAR_METHODS:
        return SCALAR
    if attr in T.TENSOR_VIEW_METHODS:
        return TENSOR
    if attr == "to":
        casts = "dtype" in kwk or TENSOR in argk or any(_is_dtype(dp, a) for a in e.args)
        if casts:
            dp._compute(e, "to", "dtype conversion with .to()")
        return TENSOR
    if attr in T.TENSOR_CASTS:
        if attr == "type" and not e.args and not e.keywords:
            return SCALAR
        dp._compute(e, attr, f"dtype conversion .{attr}()")
        return TENSOR
    dp._compute(e, attr, f"tensor method .{attr}()")
    return TENSOR


def _is_dtype(dp: DataPath, node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "dtype":
        return True
    q = dp.ix.qualname(node)
    return bool(q) and q.startswith("torch.") and torch_category(q) == "dtype"


def _builtin(dp: DataPath, e: ast.Call, name: str, argk: list[str], tensor_arg: bool) -> str:
    if name in T.BUILTIN_TENSOR_COMPUTE and tensor_arg:
        dp._compute(e, name, f"Python {name}() over a tensor")
        return TENSOR
    if name in T.BUILTIN_SCALAR or name in T.BUILTIN_TENSOR_COMPUTE:
        return SCALAR
    if name in ("tuple", "list") and argk:
        return argk[0] if argk[0] in (SCALAR, "tensors") else ("tensors" if argk[0] == TENSOR else UNKNOWN)
    if name == "print":
        return "none"
    return UNKNOWN
