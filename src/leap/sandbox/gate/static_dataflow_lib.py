"""Library calls for the data-path analysis: PyTorch (allocation, views, queries, compute), numpy/cupy
(views and metadata of an array pass; math on an array, or on data read out of a tensor, is compute; a
call that builds an array gives one), triton, cuda.core, ``math``/``operator``, ``typing.cast`` and the
namedtuple factories, and Python builtins (reading a tensor's value out with ``float(x)`` gives data).

Anything else of a library, called with a possible tensor, is compute as far as the gate can tell, and a
function of the candidate's handed to a library call may be called with anything (`escape`).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate import static_scopes as S
from leap.sandbox.gate.static_analysis import Analysis
from leap.sandbox.gate.static_callargs import CallArgs
from leap.sandbox.gate.static_gate_tables import torch_category
from leap.sandbox.gate.static_kinds import DATA, DTYPE, NONE, OPAQUE, SCALAR, SEQ, TENSOR, UNKNOWN, Kind, Tag

_OPAQUE_TORCH = ("torch.cuda", "torch.backends", "torch.version", "torch.no_grad", "torch.inference_mode",
                 "torch.enable_grad")
_TORCH_META = ("numel", "is_tensor", "is_floating_point", "is_complex", "result_type", "typename",
               "is_grad_enabled")
_CONTAINERS = ("tuple", "list", "set", "frozenset", "reversed", "iter")
_FROM_DATA = ("tensor", "as_tensor", "asarray", "scalar_tensor")  # build a tensor from values (no size argument)
_DTYPE_QUERIES = ("result_type", "promote_types", "get_default_dtype")


def escape(dp: Analysis, args: CallArgs) -> None:
    """The candidate's functions among ``args`` may be called by code the analysis cannot see: their
    parameters may get anything."""
    for k in args.kinds():
        _escape(dp, k)


def _escape(dp: Analysis, k: Kind) -> None:
    names = list(k.names) if k.tag is Tag.USERFN else []
    if k.tag is Tag.CLASS:  # a library may build it
        names = [f"{c}.{n}" for c, n in dp.plan.resolve(k.arg, "__init__")]
    if names:
        for name in names:
            key = tuple(name.split(".", 1)) if "." in name else (None, name)
            f = dp.funcs.get(key)
            if f is not None and not (key[0] is None and key[1] in dp.prune_fns):  # Triton calls those
                # with known kinds (`static_launch.prune_hooks`)
                p = f.params
                for a in [*p.positional, *p.kwonly, p.vararg, p.kwarg]:
                    if a:
                        dp.seen.add((key, a), UNKNOWN)
    for sub in [k.inner, *(v for _, v in k.fields)]:
        if sub is not None:
            _escape(dp, sub)


_DESCRIPTORS = frozenset({"triton.tools.tensor_descriptor.TensorDescriptor",
                          "triton.tools.tensor_descriptor.TensorDescriptor.from_tensor"})


def library_call(dp: Analysis, e: ast.Call, q: str, args: CallArgs) -> Kind:
    root, last = q.split(".")[0], q.rsplit(".", 1)[-1]
    if root == "torch":
        return _torch_call(dp, e, q, last, args)
    if q in ("collections.namedtuple", "typing.NamedTuple"):
        names = _field_names(e)
        return Kind(Tag.RECORDTYPE, ",".join(names)) if names is not None else UNKNOWN
    if q == "typing.cast":
        if args.star is not None or args.kwstar is not None:
            return UNKNOWN
        return args.pos[1] if len(args.pos) > 1 else args.kw.get("val", UNKNOWN)
    if q == "warnings.warn":
        return NONE
    if q == "dataclasses.field" and not args.pos and args.star is None and args.kwstar is None:
        fac = next((k.value for k in e.keywords if k.arg == "default_factory"), None)
        if isinstance(fac, ast.Name) and fac.id in ("list", "dict", "set", "tuple") and not S.binds(dp.ix.tree, fac.id):
            return K.items(K.UNSET)  # field(default_factory=list): an empty container
        if fac is None and "default" in args.kw:
            return args.kw["default"]
    ks = args.kinds()
    if q in _DESCRIPTORS:  # a kernel argument describing blocks of a tensor: that tensor, seen through it
        base, rest = (args.pos[0], [*args.pos[1:], *args.kw.values()]) if args.pos else (UNKNOWN, ks)
        if base.has_data or base.tag is not Tag.TENSOR or any(k.maybe_tensor for k in rest):
            dp.unknown(e, f"{q}() of something other than a tensor and its sizes")
        return TENSOR
    if root == "triton":
        if q in ("triton.language.constexpr", "triton.language.core.constexpr") and len(args.pos) == 1 \
                and not args.kw and args.star is None and args.kwstar is None:
            return args.pos[0]  # BLOCK = tl.constexpr(512): the value it wraps (Triton reads .value the same)
        if last in ("cdiv", "next_power_of_2"):
            if any(k.tag is Tag.TENSOR for k in ks):
                dp.compute(e, last, f"{q} on a tensor or tensor data")
            return K.tainted(SCALAR, ks)
        if last in ("Config", "autotune"):  # Triton calls its hooks with the launch's arguments, tensors included:
            for n in ("pre_hook", "post_hook"):  # only the candidate's own functions, which the analysis reads
                k = args.kw.get(n, NONE)
                if k.tag not in (Tag.NONE, Tag.USERFN, Tag.CALLABLE):
                    dp.flag(e, f"{n} of triton.{last} must be a function or lambda of the solution's own, not a "
                               f"value of kind {k.tag.value}", "kernel_args")
        if last == "autotune" and isinstance(args.kwnodes.get("prune_configs_by"), ast.Dict):
            # {"early_config_prune": f, "perf_model": g, "top_k": n}: Triton calls f and g with known kinds
            # (`static_launch.prune_hooks`), so the dict is not "anything"
            for v in args.kwnodes["prune_configs_by"].values:  # (already analysed with the dict)
                own = isinstance(v, ast.Lambda | ast.Constant) or (isinstance(v, ast.Name) and (None, v.id) in dp.funcs)
                k = NONE if own else dp._kind(v, {}, None)
                if k.tag not in (Tag.USERFN, Tag.CALLABLE, Tag.SCALAR, Tag.NONE):
                    dp.flag(e, f"a prune_configs_by value of triton.autotune must be a function of the solution's "
                               f"own or a number, not a value of kind {k.tag.value}", "kernel_args")
            args = replace(args, kw={n: k for n, k in args.kw.items() if n != "prune_configs_by"})
        if last == "Config":  # its values reach tl.constexpr parameters
            for k in [*args.pos[:1], *(v for n, v in args.kw.items() if n not in ("pre_hook", "post_hook"))]:
                if k.maybe_tensor or K.host_object(k):
                    dp.flag(e, "a triton.Config value is not a constant", "kernel_args")
            return OPAQUE
    elif root in ("cupy", "numpy"):
        return _array_call(dp, e, q, last, args)
    elif root == "cuda":
        if last == "Program":
            return K.PROGRAM
        if last == "launch":
            dp.sink.add("cuda_nvrtc")
            return NONE
        return K.tainted(UNKNOWN, ks) if args.tensor else OPAQUE
    elif root in ("math", "cmath", "operator"):
        if args.tensor:
            dp.compute(e, last, f"{q} on a value that may be a tensor")
            return K.tainted(TENSOR, ks)
        return SCALAR if all(k.tag is Tag.SCALAR for k in ks) else UNKNOWN
    elif q in _NUMBER_COMBINATIONS and not args.tensor and all(k.tag is Tag.SCALAR for k in ks):
        return K.items(SCALAR)  # itertools.product([64, 128], [4, 8]): tuples of the numbers it was given
    if args.tensor:  # functools.reduce(operator.mul, ...), itertools, copy.deepcopy, ...: default deny
        dp.unknown(e, f"{q}()")
    escape(dp, args)
    return K.tainted(UNKNOWN, ks)


_NUMBER_COMBINATIONS = frozenset(f"itertools.{n}" for n in (
    "product", "combinations", "combinations_with_replacement", "permutations", "chain", "repeat", "zip_longest",
    "islice", "cycle"))


def _array_call(dp: Analysis, e: ast.Call, q: str, last: str, args: CallArgs) -> Kind:
    if last in ("RawKernel", "ElementwiseKernel", "ReductionKernel"):
        return K.RAWKERNEL
    if last == "RawModule":
        return K.RAWMODULE
    if q.startswith("cupy.cuda.") and last in T.CUPY_CUDA_OPAQUE:
        return OPAQUE
    ks = args.kinds()
    if any(k.tag in (Tag.USERMOD, Tag.CLASS) for k in ks):  # numpy reads it as a sequence (a NamedTuple
        dp.unknown(e, f"{q}() of an object of the solution's own class (it may hold tensors)")  # subclass...)
        return UNKNOWN
    if last in T.ARRAY_LIB_VIEWS:
        return K.tainted(TENSOR, ks)
    if last in T.ARRAY_LIB_META:
        return K.tainted(SEQ if last == "shape" else DTYPE if last in _DTYPE_QUERIES else SCALAR, ks)
    if args.tensor:
        dp.compute(e, last, f"{q} on a tensor or array")
        return K.tainted(TENSOR, ks)
    if q.startswith("numpy.") and any(k.tag is Tag.OPAQUE for k in ks):  # what a library object holds may be a
        dp.unknown(e, f"{q} on a library object")                          # tensor stored there (Config.kwargs)
        return UNKNOWN
    if last in T.ARRAY_LIB_SCALAR_FNS:
        if any("seq" in k.flavours for k in ks) and last != "prod":  # np.float32([..]), np.exp([..]): an array
            if last in T.ARRAY_LIB_ELEMENTWISE:
                dp.compute(e, last, f"{q} on a sequence (array math)")
            return TENSOR
        if last == "dtype":
            return DTYPE
        return SCALAR if all(k.tag in (Tag.SCALAR, Tag.NONE) for k in ks) else UNKNOWN
    escape(dp, args)
    return TENSOR  # it builds an array (np.arange, cp.ndarray over raw memory, ...)


def _field_names(e: ast.Call) -> list[str] | None:
    spec = e.args[1] if len(e.args) > 1 else next((k.value for k in e.keywords if k.arg in ("field_names",
                                                                                           "fields")), None)
    if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        return spec.value.replace(",", " ").split()
    if isinstance(spec, ast.List | ast.Tuple):
        out = []
        for x in spec.elts:
            if isinstance(x, ast.Constant) and isinstance(x.value, str):
                out.append(x.value)
            elif isinstance(x, ast.Tuple) and x.elts and isinstance(x.elts[0], ast.Constant):
                out.append(str(x.elts[0].value))
            else:
                return None
        return out
    return None


def _torch_call(dp: Analysis, e: ast.Call, q: str, last: str, args: CallArgs) -> Kind:
    if q == "torch.utils.cpp_extension.load_inline":
        cuda = next((k.value for k in e.keywords if k.arg == "cuda_sources"), None)
        if cuda is None and len(e.args) >= 3:
            cuda = e.args[2]
        empty = cuda is None or (isinstance(cuda, ast.Constant) and not cuda.value) or (
            isinstance(cuda, ast.List | ast.Tuple) and not cuda.elts)
        return K.CPPEXT if empty else K.EXT
    cat = torch_category(q)
    pos = args.positional()
    ks = args.kinds()
    if q == "torch.nn.functional.pad" and not _constant_pad(e):
        cat = "compute"  # reflect/replicate/circular: other aten ops than the constant pad the backstop allows
    if q in T.TORCH_MOVEMENT and any(k.arg == "out" for k in e.keywords):
        cat = "compute"  # torch.cat([...], out=t): written in t's dtype, a conversion (a 2026-12-05 hack narrowed)
    if cat in ("alloc", "view"):
        _torch_sizes(dp, e, cat, last, args)
        return K.tainted(TENSOR, ks)
    if cat == "dtype":
        return DTYPE
    if cat in ("query", "safe"):
        if last in ("Parameter", "Buffer") or last.endswith("Tensor") or last in ("from_dlpack", "from_numpy"):
            return K.tainted(TENSOR, ks)
        if last in ("ModuleList", "Sequential", "ModuleDict"):
            if any(k.tag in (Tag.TORCHMOD, Tag.TORCHMODS) or K.element(k).tag is Tag.TORCHMOD for k in pos):
                return K.TORCHMODS
            return pos[0] if last != "Sequential" and pos else K.items(K.join(pos))
        if cat == "query":
            if args.tensor and last not in _TORCH_META and not last.startswith("is_"):
                return K.tainted(UNKNOWN, ks)
            if last in ("no_grad", "inference_mode", "enable_grad"):
                return OPAQUE
            return K.tainted(DTYPE if last in _DTYPE_QUERIES else SEQ if last == "Size" else SCALAR, ks)
        if args.tensor and last not in T.TORCH_SAFE_TENSOR_CALLS:
            dp.unknown(e, f"{q}()")
            return K.tainted(UNKNOWN, ks)
        if any(q == p or q.startswith(p + ".") for p in _OPAQUE_TORCH):
            return K.tainted(UNKNOWN, ks) if args.tensor else OPAQUE
        escape(dp, args)
        return K.tainted(UNKNOWN, ks)
    if cat == "module":
        if last == "Sequential":
            dp.compute(e, "sequential", "building torch.nn layers in the data path")
            return K.TORCHMODS
        dp.compute(e, last.lower(), f"building a torch.nn layer ({last}) in the data path")
        if args.tensor:  # nn.Threshold(t, t): its settings (threshold, value) are those tensors, not numbers
            dp.unknown(e, f"building a torch.nn layer ({last}) with tensor arguments")
            return K.tainted(UNKNOWN, ks)
        return Kind(Tag.TORCHMOD, last.lower())
    dp.compute(e, last, q)
    return K.tainted(TENSOR, ks)


def _constant_pad(e: ast.Call) -> bool:
    """``F.pad`` in its default ``mode="constant"`` (written or not), with a number as the fill value."""
    mode = e.args[2] if len(e.args) > 2 else next((k.value for k in e.keywords if k.arg == "mode"), None)
    value = e.args[3] if len(e.args) > 3 else next((k.value for k in e.keywords if k.arg == "value"), None)
    return (mode is None or isinstance(mode, ast.Constant) and mode.value == "constant") and (
        value is None or isinstance(value, ast.Constant) and isinstance(value.value, int | float))


def _torch_sizes(dp: Analysis, e: ast.Call, cat: str, last: str, args: CallArgs) -> None:
    """Sizes, indices and offsets of a torch allocation or view come from metadata, constants or scalars:
    one taken from a tensor or its data gives a shape that is data (``torch.empty(0, v).shape[1]`` is v).
    Values (``torch.tensor(v)``, a fill value) and the tensor viewed or matched are not sizes."""
    if last in _FROM_DATA or last.endswith("_like") or last.startswith("atleast_") or last in ("detach", "clone"):
        return
    pos = list(args.pos)
    if cat == "view" or last == "full":  # the tensor viewed / full's fill value
        pos = pos[1:] if cat == "view" else pos[:1]
    sizes = [*pos, *(k for n, k in args.kw.items() if n not in ("out", "fill_value", "input")),
             *(k for k in (args.star, args.kwstar) if k is not None)]
    if any(k.is_tensorish or k.has_data for k in sizes):
        dp.compute(e, last, f"torch.{last}() with a size, index or offset taken from a tensor or tensor data")


def builtin(dp: Analysis, e: ast.Call, name: str, args: CallArgs) -> Kind:
    pos = args.positional()
    ks = args.kinds()
    if name in T.BUILTIN_TENSOR_COMPUTE and args.tensor:
        dp.compute(e, name, f"Python {name}() over a value that may be a tensor or tensor data")
        return K.tainted(TENSOR, ks)
    if name in T.BUILTIN_TENSOR_COMPUTE:
        escape(dp, args)
        return UNKNOWN if name == "map" else SEQ if name == "sorted" else SCALAR
    if (name in T.BUILTIN_DATA or name in ("len", "set", "frozenset")) and any(k.has_data for k in ks) or (
            name == "bool" and any(k.tag is Tag.TENSOR for k in ks)):  # len(range(v)) is max(v, 0)
        dp.compute(e, name, f"Python {name}() of tensor data (a value read out of a tensor)")
        return DATA
    if name == "len":  # of a tensor, its first size (metadata)
        return K.tainted(SCALAR, ks)
    if name == "range":  # range(v) of a tensor's value (or of a value that may be one) is data
        return DATA if args.tensor else SEQ
    if name in T.BUILTIN_DATA and args.tensor:
        return DATA  # the tensor's value read out as a Python number or string
    if name in T.BUILTIN_SCALAR:
        return K.tainted(SCALAR, ks)
    if name in _CONTAINERS and pos:
        k = pos[0]
        if k.has_data:
            return DATA
        if k.tag is Tag.TENSOR:
            return TENSOR if name in ("reversed", "iter") else K.TENSORS
        if k.tag is Tag.SCALAR:
            return K.scalar(k.flavours | {"seq"})
        return k if k.tag in (Tag.TENSORS, Tag.ITEMS, Tag.RECORD) else UNKNOWN
    if name in _CONTAINERS:
        return K.items(K.UNSET)
    if name == "dict":
        if args.kw and not pos and len(set(args.kw.values())) > 1:  # dict(x_ptr=x, n=n): each keeps its kind
            return K.record(args.kw.items())
        if args.tensor:
            return K.tainted(K.TENSORS, ks)
        parts = [K.element(K.element(k)) for k in pos] + list(args.kw.values())
        return K.items(K.join(parts)) if parts else K.items(K.UNSET)
    if name == "enumerate" and pos:
        return K.items(Kind(Tag.INDEXED, inner=K.element(pos[0])))
    if name == "zip":
        return K.items(K.record((str(i), K.element(k)) for i, k in enumerate(pos)))
    if name == "next" and pos:
        return K.merge(K.element(pos[0]), pos[1] if len(pos) > 1 else NONE)
    if name == "print":
        return NONE
    if name == "super":
        return Kind(Tag.SUPER, dp.cur_cls or "")
    if args.tensor:
        dp.unknown(e, f"{name}()")
    escape(dp, args)
    return K.tainted(UNKNOWN, ks)


def extension_call(dp: Analysis, e: ast.Call, t: Tag, attr: str, args: CallArgs) -> Kind:
    """A ``load_inline`` extension's function. With C++ sources only it is host code: whatever it is given
    (tensors, or their ``data_ptr()`` as integers) it computes on the CPU. When the backend is Triton, any
    extension call is work outside the Triton kernels the task asks for."""
    if t is Tag.EXT:
        dp.sink.add("cuda_inline")
    if t is Tag.CPPEXT:
        dp.compute(e, "cpp_extension", f"calling .{attr}() of a C++ extension without CUDA sources (host code: "
                                       "it runs on the CPU, on tensors or on their data pointers)")
    elif dp.backend == "triton":  # reported once a Triton kernel is found (else: no_kernel)
        dp.compute(e, "cpp_extension", f"calling .{attr}() of a load_inline extension (the backend is triton: "
                                       "the work must be in Triton kernels)", deferred=True)
    return TENSOR


_CTX_METHODS = frozenset({"save_for_backward", "mark_dirty", "mark_non_differentiable", "set_materialize_grads",
                          "save_for_forward"})


def ctx_method(dp: Analysis, e: ast.Call, kb: Kind, attr: str, args: CallArgs) -> Kind:
    """``ctx.save_for_backward(x)`` and the other bookkeeping of an autograd Function's ctx keep tensors for
    backward (which never runs in the sandbox); any other method is not known."""
    if attr in _CTX_METHODS:
        return NONE
    if args.tensor:
        dp.unknown(e, f"method .{attr}() of an autograd ctx with tensor arguments")
    escape(dp, args)
    return UNKNOWN
