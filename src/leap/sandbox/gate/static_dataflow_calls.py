"""Call handling for the data-path analysis: what a call returns, whether it is PyTorch compute, and
whether it launches a custom kernel (Triton ``k[grid](...)`` however the kernel reaches the call site, a
``load_inline`` extension function, a cupy ``RawKernel`` or a cuda.core ``launch``).

Default deny here too: calling a value the analysis cannot identify, or a library function it does not
know, with an argument that may be a tensor is PyTorch compute as far as the gate can tell.
"""

from __future__ import annotations

import ast

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate.static_analysis import Analysis
from leap.sandbox.gate.static_gate_tables import torch_category
from leap.sandbox.gate.static_kinds import NONE, OPAQUE, SCALAR, TENSOR, UNKNOWN, UNSET, Kind, Tag, merge

# Methods of Python containers and strings: allowed on a value of unknown kind (tensors have none of them).
OBJECT_METHODS = frozenset({"append", "extend", "insert", "pop", "get", "keys", "values", "items", "update",
                            "setdefault", "copy", "index", "count", "format", "join", "startswith", "endswith",
                            "lower", "upper", "strip", "replace", "add", "discard", "popitem"})
_STORING = ("append", "extend", "insert", "add", "update", "setdefault")
# Library functions that never compute on their arguments.
_PASSTHROUGH = frozenset({"typing.cast", "warnings.warn"})
_OPAQUE_TORCH = ("torch.cuda", "torch.backends", "torch.version", "torch.no_grad", "torch.inference_mode",
                 "torch.enable_grad")


def call_kind(dp: Analysis, e: ast.Call, env: dict[str, Kind], stmt) -> Kind:
    f = e.func
    argk = [dp._kind(a, env, stmt) for a in e.args]
    kwk = {k.arg: dp._kind(k.value, env, stmt) for k in e.keywords}
    tensor_arg = any(k.maybe_tensor for k in [*argk, *kwk.values()])
    if isinstance(f, ast.Name):
        if f.id in env:
            return call_value(dp, e, env[f.id], argk, kwk, tensor_arg)
        q = dp.ix.qualname(f)
        if q is not None:
            return qualified(dp, e, q, argk, kwk, tensor_arg)
        if f.id in dp.ix.jit:
            return NONE
        if f.id in dp.ix.classes:
            return _class_call(dp, f.id, argk, kwk)
        if f.id in dp.ix.functions:
            return _user_call(dp, (None, f.id), argk, kwk)
        if f.id in dp.module_kinds:
            return call_value(dp, e, dp.module_kinds[f.id], argk, kwk, tensor_arg)
        return _builtin(dp, e, f.id, [*argk, *kwk.values()] if f.id == "dict" else argk, tensor_arg)
    if isinstance(f, ast.Attribute):
        base = f.value
        if isinstance(base, ast.Name) and base.id == "self" and "self" not in env:
            key = (dp.cur_cls, f.attr)
            if key in dp.funcs:
                return _user_call(dp, key, argk, kwk)
            return call_value(dp, e, dp.self_kind(dp.cur_cls, f.attr), argk, kwk, tensor_arg)
        q = dp.ix.qualname(f)
        if q is not None:
            return qualified(dp, e, q, argk, kwk, tensor_arg)
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "super":
            return NONE  # super().__init__(...)
        kb = dp._kind(base, env, stmt)
        return _method(dp, e, kb, f.attr, argk, kwk, tensor_arg, env)
    return call_value(dp, e, dp._kind(f, env, stmt), argk, kwk, tensor_arg)


def call_value(dp: Analysis, e: ast.Call, fk: Kind, argk: list[Kind], kwk: dict[str, Kind],
               tensor_arg: bool) -> Kind:
    """Calling a value whose kind is ``fk``."""
    t = fk.tag
    if t is Tag.REF:
        return qualified(dp, e, fk.arg, argk, kwk, tensor_arg)
    if t is Tag.LAUNCHER:
        dp.sink.add("triton")
        return NONE
    if t is Tag.JIT:
        return NONE
    if t is Tag.CLASS:
        return _class_call(dp, fk.arg, argk, kwk)
    if t is Tag.USERFN:
        return _user_call(dp, (None, fk.arg), argk, kwk)
    if t is Tag.USERMOD:
        fwd = (fk.arg, "forward") if (fk.arg, "forward") in dp.funcs else (fk.arg, "__call__")
        return _user_call(dp, fwd, argk, kwk) if fwd in dp.funcs else UNKNOWN
    if t in (Tag.TORCHMOD, Tag.TORCHMODS):
        name = fk.arg or "sequential"
        dp.compute(e, name, f"calling a torch.nn layer ({name})")
        return TENSOR
    if t is Tag.CALLABLE:
        dp.sink.update(dp.callables.get(fk.arg, ()))
        return UNKNOWN
    if t in (Tag.RAWKERNEL, Tag.CCKERNEL):
        dp.sink.add("cuda_nvrtc")
        return NONE
    if tensor_arg:
        dp.unknown(e, "calling it with tensor arguments")
    return UNKNOWN


def _class_call(dp: Analysis, cname: str, argk: list[Kind], kwk: dict[str, Kind]) -> Kind:
    if (cname, "__init__") in dp.funcs:
        _propagate(dp.funcs[(cname, "__init__")], argk, kwk)
    return Kind(Tag.USERMOD, cname)


def _user_call(dp: Analysis, key, argk: list[Kind], kwk: dict[str, Kind]) -> Kind:
    fn = dp.funcs[key]
    _propagate(fn, argk, kwk)
    dp.sink.update(fn.launches)  # a method off the path (only possible when silent) keeps its own
    return fn.ret if fn.ret != UNSET else UNKNOWN


def _propagate(fn, argk: list[Kind], kwk: dict[str, Kind]) -> None:
    names = fn.names[fn.offset:]
    pairs = list(zip(names, argk, strict=False)) + [(n, k) for n, k in kwk.items() if n is not None]
    if len(argk) > len(names):  # *args
        va = fn.node.args.vararg
        if va is not None:
            pairs.append((va.arg, K.items(_join(argk[len(names):]))))
    for name, k in pairs:
        fn.seen_next[name] = merge(fn.seen_next.get(name, UNSET), k)


def _join(ks: list[Kind]) -> Kind:
    out = UNSET
    for k in ks:
        out = merge(out, k)
    return out


def method_store(dp: Analysis, target: ast.expr, k: Kind, env: dict[str, Kind]) -> None:
    """Record that the container named by ``target`` now holds kind ``k`` (a name or ``self.attr``)."""
    if isinstance(target, ast.Name) and target.id in env:
        env[target.id] = k
    elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
          and target.value.id == "self" and "self" not in env):
        dp.store_self(dp.cur_cls, target.attr, k)
    elif isinstance(target, ast.Name) and target.id in dp.module_kinds:
        dp.module_kinds[target.id] = merge(dp.module_kinds[target.id], k)


def qualified(dp: Analysis, e: ast.Call, q: str, argk: list[Kind], kwk: dict[str, Kind], tensor_arg: bool) -> Kind:
    root = q.split(".")[0]
    last = q.rsplit(".", 1)[-1]
    if root == "torch":
        return _torch_call(dp, e, q, last, argk, tensor_arg)
    if q == "functools.partial" and argk:
        fk = argk[0]
        if fk.tag is Tag.USERFN:
            _user_call(dp, (None, fk.arg), argk[1:], kwk)
        elif fk.tag is Tag.REF:
            return fk
        elif fk.tag not in (Tag.LAUNCHER, Tag.CALLABLE, Tag.CLASS, Tag.RAWKERNEL, Tag.CCKERNEL, Tag.JIT):
            if tensor_arg:
                dp.unknown(e, "functools.partial")
            return UNKNOWN
        return fk
    if root == "triton":
        if last in ("cdiv", "next_power_of_2"):
            return SCALAR
        return UNKNOWN
    if root in ("cupy", "numpy"):
        if last in ("RawKernel", "ElementwiseKernel", "ReductionKernel"):
            return K.RAWKERNEL
        if last == "RawModule":
            return K.RAWMODULE
        if last in ("asarray", "from_dlpack", "fromDlpack"):
            return TENSOR
        if tensor_arg and last not in T.ARRAY_LIB_SAFE:
            dp.compute(e, last, f"{q} on a tensor")
            return TENSOR
        if last in ("empty", "empty_like", "zeros", "zeros_like"):
            return TENSOR
        return SCALAR if all(k == SCALAR for k in [*argk, *kwk.values()]) else UNKNOWN
    if root == "cuda":
        if last == "Program":
            return K.PROGRAM
        if last == "launch":
            dp.sink.add("cuda_nvrtc")
            return NONE
        return UNKNOWN if tensor_arg else OPAQUE
    if root in ("math", "cmath", "operator"):
        if tensor_arg:
            dp.compute(e, last, f"{q} on a value that may be a tensor")
            return TENSOR
        return SCALAR if all(k == SCALAR for k in [*argk, *kwk.values()]) else UNKNOWN
    if q in _PASSTHROUGH:
        return argk[1] if q == "typing.cast" and len(argk) > 1 else NONE
    if tensor_arg:  # functools.reduce(operator.mul, ...), itertools, copy.deepcopy, ...: default deny
        dp.unknown(e, f"{q}()")
    return UNKNOWN


def _torch_call(dp: Analysis, e: ast.Call, q: str, last: str, argk: list[Kind], tensor_arg: bool) -> Kind:
    if q == "torch.utils.cpp_extension.load_inline":
        cuda = next((k.value for k in e.keywords if k.arg == "cuda_sources"), None)
        if cuda is None and len(e.args) >= 3:
            cuda = e.args[2]
        empty = cuda is None or (isinstance(cuda, ast.Constant) and not cuda.value) or (
            isinstance(cuda, ast.List | ast.Tuple) and not cuda.elts)
        return K.CPPEXT if empty else K.EXT
    cat = torch_category(q)
    if cat in ("alloc", "view"):
        return TENSOR
    if cat == "dtype":
        return SCALAR
    if cat in ("query", "safe"):
        if last in ("Parameter", "Buffer") or last.endswith("Tensor") or last in ("from_dlpack", "from_numpy"):
            return TENSOR
        if last in ("ModuleList", "Sequential", "ModuleDict"):
            if any(k.tag in (Tag.TORCHMOD, Tag.TORCHMODS) or K.element(k).tag is Tag.TORCHMOD for k in argk):
                return K.TORCHMODS
            return argk[0] if last != "Sequential" and argk else K.items(_join(argk))
        if last == "numel" or last.startswith("is_") or cat == "query" and not tensor_arg:
            return OPAQUE if last in ("no_grad", "inference_mode", "enable_grad") else SCALAR
        if any(q == p or q.startswith(p + ".") for p in _OPAQUE_TORCH):
            return UNKNOWN if tensor_arg else OPAQUE
        return UNKNOWN
    if cat == "module":
        if last == "Sequential":
            dp.compute(e, "sequential", "building torch.nn layers in the data path")
            return K.TORCHMODS
        dp.compute(e, last.lower(), f"building a torch.nn layer ({last}) in the data path")
        return Kind(Tag.TORCHMOD, last.lower())
    dp.compute(e, last, q)
    return TENSOR


def _method(dp: Analysis, e: ast.Call, kb: Kind, attr: str, argk: list[Kind], kwk: dict[str, Kind],
            tensor_arg: bool, env) -> Kind:
    t = kb.tag
    if t is Tag.EXT:
        dp.sink.add("cuda_inline")
        return TENSOR
    if t is Tag.CPPEXT:
        return TENSOR
    if t is Tag.RAWMODULE and attr == "get_function":
        return K.RAWKERNEL
    if t is Tag.PROGRAM and attr == "compile":
        return K.CCMODULE
    if t is Tag.CCMODULE and attr == "get_kernel":
        return K.CCKERNEL
    if t in (Tag.USERMOD, Tag.CLASS):
        key = (kb.arg, attr)
        if key in dp.funcs:
            return _user_call(dp, key, argk, kwk)
        if (kb.arg, attr) in dp.ix.jit_methods:
            return NONE
        if attr == "apply":
            fwd = dp.funcs.get((kb.arg, "forward"))
            if fwd is not None:
                _propagate(fwd, argk, kwk)
            return fwd.ret if fwd is not None and fwd.ret not in (UNKNOWN, UNSET) else TENSOR
        return call_value(dp, e, dp.self_kind(kb.arg, attr), argk, kwk, tensor_arg)
    if t is Tag.REF:
        return qualified(dp, e, f"{kb.arg}.{attr}", argk, kwk, tensor_arg)
    if t in (Tag.TORCHMOD, Tag.TORCHMODS):
        dp.compute(e, kb.arg or "sequential", f"calling a torch.nn layer method ({attr})")
        return TENSOR
    if t is Tag.SCALAR:
        return SCALAR
    if t is Tag.OPAQUE:
        return UNKNOWN if tensor_arg else OPAQUE
    if t is Tag.ITEMS or t is Tag.TENSORS:
        return _container_method(dp, e, kb, attr, argk, env)
    if t is Tag.TENSOR:
        return _tensor_method(dp, e, attr, argk, kwk)
    if t in (Tag.UNKNOWN, Tag.UNSET):
        if attr in OBJECT_METHODS:
            return NONE if attr in _STORING else UNKNOWN
        if attr in T.TENSOR_SCALAR_METHODS:
            return SCALAR
        if attr in T.TENSOR_VIEW_METHODS:
            return UNKNOWN
        dp.unknown(e, f"method .{attr}()")
        return UNKNOWN
    if tensor_arg:
        dp.unknown(e, f"method .{attr}() with tensor arguments")
    return UNKNOWN


def _container_method(dp: Analysis, e: ast.Call, kb: Kind, attr: str, argk: list[Kind], env) -> Kind:
    if attr in _STORING:
        k = kb
        for a in argk[-1:]:
            k = K.container_of(k, K.element(a) if attr in ("extend", "update") else a)
        method_store(dp, e.func.value, k, env)
        return NONE
    if attr in ("get", "pop", "setdefault", "popitem"):
        return K.element(kb)
    if attr in ("values", "copy"):
        return kb
    if attr in ("keys", "index", "count"):
        return SCALAR
    if attr == "items":
        return K.items(UNKNOWN)
    dp.unknown(e, f"method .{attr}() of a container")
    return UNKNOWN


def _tensor_method(dp: Analysis, e: ast.Call, attr: str, argk: list[Kind], kwk: dict[str, Kind]) -> Kind:
    if attr in T.TENSOR_SCALAR_METHODS:
        return SCALAR
    if attr in T.TENSOR_VIEW_METHODS:
        return TENSOR
    if attr == "to":
        casts = "dtype" in kwk or TENSOR in argk or any(_is_dtype(dp, a) for a in e.args)
        if casts:
            dp.compute(e, "to", "dtype conversion with .to()")
        return TENSOR
    if attr in T.TENSOR_CASTS:
        if attr == "type" and not e.args and not e.keywords:
            return SCALAR
        dp.compute(e, attr, f"dtype conversion .{attr}()")
        return TENSOR
    dp.compute(e, attr, f"tensor method .{attr}()")
    return TENSOR


def _is_dtype(dp: Analysis, node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "dtype":
        return True
    q = dp.ix.qualname(node)
    return bool(q) and q.startswith("torch.") and torch_category(q) == "dtype"


def _builtin(dp: Analysis, e: ast.Call, name: str, argk: list[Kind], tensor_arg: bool) -> Kind:
    if name in T.BUILTIN_TENSOR_COMPUTE and tensor_arg:
        dp.compute(e, name, f"Python {name}() over a value that may be a tensor")
        return TENSOR
    if name in T.BUILTIN_SCALAR or name in T.BUILTIN_TENSOR_COMPUTE:
        return SCALAR
    if name in ("tuple", "list", "set", "frozenset", "reversed", "iter") and argk:
        k = argk[0]
        return TENSOR if k == TENSOR and name in ("reversed", "iter") else (
            K.TENSORS if k == TENSOR else (k if k.tag in (Tag.SCALAR, Tag.TENSORS, Tag.ITEMS) else UNKNOWN))
    if name == "dict":
        return K.TENSORS if tensor_arg else K.items(_join(argk) if argk else UNSET)
    if name in ("tuple", "list", "set", "frozenset"):
        return K.items(UNSET)
    if name == "enumerate" and argk:
        return K.items(Kind(Tag.INDEXED, inner=K.element(argk[0])))
    if name == "zip":
        return K.items(K.TENSORS if any(K.element(k).maybe_tensor for k in argk) else SCALAR)
    if name == "next" and argk:
        return K.element(argk[0])
    if name in ("print", "super"):
        return NONE if name == "print" else OPAQUE
    if name == "isinstance":
        return SCALAR
    if tensor_arg:
        dp.unknown(e, f"{name}()")
    return UNKNOWN
