"""Call handling for the data-path analysis: what a call of the candidate's own code returns and what it
passes on (arguments to parameters, stores into the caller's containers), calls of values, methods,
``super()`` and kernel launches (Triton ``k[grid](...)`` however the kernel reaches the call site, a
``load_inline`` extension function, a cupy ``RawKernel`` or a cuda.core ``launch``). Library calls are in
`leap.sandbox.gate.static_dataflow_lib`.

Default deny here too: calling a value the analysis cannot identify with an argument that may be a
tensor is PyTorch compute as far as the gate can tell; a function of the candidate's handed to code the
analysis cannot see (a library call) gets possibly-tensor parameters.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate.static_analysis import Analysis
from leap.sandbox.gate.static_callargs import CallArgs, bind, expand, of_kinds
from leap.sandbox.gate.static_dataflow_lib import builtin, ctx_method, escape, extension_call, library_call
from leap.sandbox.gate.static_gate_tables import torch_category
from leap.sandbox.gate.static_index import JIT_DECORATORS
from leap.sandbox.gate.static_kinds import NONE, OPAQUE, SCALAR, SEQ, TENSOR, UNKNOWN, UNSET, Kind, Tag, merge
from leap.sandbox.gate.static_launch import check_launch
from leap.sandbox.gate.static_plan import plain_fields

_RUN_OPTIONS = ("grid", "warmup")  # kernel.run()'s own keywords (not kernel arguments)
_STORING = ("append", "extend", "insert", "add", "update", "setdefault")
# Methods of Python containers and strings allowed on a value of unknown kind: none is a torch.Tensor or
# numpy.ndarray method (add, index, sort, values and copy are, so they are not here).
OBJECT_METHODS = frozenset({"append", "extend", "insert", "pop", "get", "keys", "items", "update", "setdefault",
                            "count", "format", "join", "startswith", "endswith", "lower", "upper", "strip",
                            "replace", "discard", "popitem"})

# torch.nn layer methods that return the layer itself (moved, cast or put in a mode), not a computation
LAYER_SELF_METHODS = frozenset({"to", "cuda", "cpu", "half", "float", "double", "bfloat16", "type", "train",
                                "eval", "requires_grad_"})


# Library and builtin calls that call a function argument on the items of their other arguments: over sizes
# and constants (``reduce(operator.mul, x.shape, 1)``, ``sorted(blocks, key=lambda b: -b)``,
# ``map(int, x.shape)``) the function sees numbers and gives numbers.
ITEM_CALLERS = frozenset({"functools.reduce", "itertools.accumulate", "sorted", "min", "max", "map", "filter"})
# of those, the calls whose result is made of what the function returns (not of the items themselves)
_RESULT_FROM_FUNCTION = frozenset({"functools.reduce", "itertools.accumulate", "map"})
# builtins that, called on numbers, give numbers (as the function argument of an `ITEM_CALLERS` call)
NUMBER_BUILTINS = frozenset({"int", "float", "abs", "round", "bool", "str", "len", "min", "max"})
# decorators whose result calls the function it wraps (`qualified`)
CACHING_WRAPPERS = frozenset({"functools.lru_cache", "functools.cache"})


def call_kind(dp: Analysis, e: ast.Call, env: dict[str, Kind], stmt) -> Kind:
    f = e.func
    items = _item_caller(dp, e, env, stmt)
    if items is not None:
        return items
    args = expand(e.args, e.keywords, lambda a: dp._kind(a, env, stmt))
    if isinstance(f, ast.Attribute) and _is_super(f.value):
        return super_call(dp, e, f.attr, args, env)
    if isinstance(f, ast.Name):
        if f.id in env:
            return call_value(dp, e, env[f.id], args, env)
        q = dp.ix.qualname(f)
        if q is not None:
            return qualified(dp, e, q, args, env)
        if f.id in dp.ix.jit:
            return NONE
        if f.id in ("self", "cls") and dp.cur_cls is not None:  # cls(...) in a classmethod builds an instance
            return call_value(dp, e, dp._kind(f, env, stmt), args, env)
        if f.id in dp.ix.classes:
            return class_call(dp, e, f.id, args, env)
        if (None, f.id) in dp.funcs:
            return user_call(dp, Kind(Tag.USERFN, f.id), args, env)
        if f.id in dp.module.cur or f.id in dp.module.nxt:
            return call_value(dp, e, dp.module_kind(f.id), args, env)
        return dunder_builtin(dp, e, f.id, args, env) or builtin(dp, e, f.id, args)
    if isinstance(f, ast.Attribute):
        q = dp.ix.qualname(f)
        if q is not None:
            return qualified(dp, e, q, args, env)
        return method(dp, e, dp._kind(f.value, env, stmt), f.attr, args, env)
    return call_value(dp, e, dp._kind(f, env, stmt), args, env)


def _item_caller(dp: Analysis, e: ast.Call, env: dict[str, Kind], stmt) -> Kind | None:
    """An `ITEM_CALLERS` call whose function argument (a lambda, an ``operator`` function or a number builtin)
    gets only numbers from the other arguments: the lambda is analysed with number parameters and the call
    gives a number (``SEQ`` for sorted/map/filter/accumulate). None: not such a call, the usual rules."""
    f = e.func
    name = dp.ix.qualname(f) or (f.id if isinstance(f, ast.Name) and f.id not in env
                                 and f.id not in dp.ix.defined_names else None)
    if name not in ITEM_CALLERS or any(isinstance(a, ast.Starred) for a in e.args) or any(
            k.arg is None for k in e.keywords):
        return None
    fn_nodes = [k.value for k in e.keywords if k.arg == "key"] if name in ("sorted", "min", "max") else e.args[:1]
    if not fn_nodes or not all(_number_function(dp, n, env) for n in fn_nodes):
        return None
    others = [a for a in [*e.args, *(k.value for k in e.keywords)] if not any(a is n for n in fn_nodes)]
    kinds = [dp._kind(a, env, stmt) for a in others]
    if any(k.maybe_tensor or k.has_data for k in kinds):
        return None
    for n in fn_nodes:
        if isinstance(n, ast.Lambda):
            dp.callable_kind(n, env, params=SCALAR)
            ret = dp.callable_rets.get(str(id(n)), UNSET)
            if name in _RESULT_FROM_FUNCTION and ret.tag not in (Tag.SCALAR, Tag.NONE, Tag.UNSET):
                return None  # what it gives is what the lambda returns (an enclosing tensor, say): the usual rules
    one = name in ("functools.reduce", "min", "max")
    return K.tainted(SCALAR if one else SEQ, kinds)


def _number_function(dp: Analysis, node: ast.expr, env: dict[str, Kind]) -> bool:
    if isinstance(node, ast.Lambda):
        return True
    if isinstance(node, ast.Name) and node.id in NUMBER_BUILTINS:
        return node.id not in env and node.id not in dp.ix.defined_names
    q = dp.ix.qualname(node)
    return q is not None and q.startswith("operator.") and q.count(".") == 1 and not q.endswith(
        ("getitem", "setitem", "delitem", "attrgetter", "itemgetter", "methodcaller", "call"))


def call_value(dp: Analysis, e: ast.Call, fk: Kind, args: CallArgs, env) -> Kind:
    """Calling a value whose kind is ``fk``."""
    t = fk.tag
    if t is Tag.REF:
        return qualified(dp, e, fk.arg, args, env)
    if t is Tag.LAUNCHER:
        check_launch(dp, e, fk.names, args, fk.bound)
        dp.sink.add("triton")
        return NONE
    if t is Tag.JIT:
        return NONE
    if t is Tag.CLASS:
        return class_call(dp, e, fk.arg, args, env)
    if t is Tag.USERFN:
        return user_call(dp, fk, args, env)
    if t is Tag.USERMOD:
        keys = dp.plan.resolve(fk.arg, "forward") or dp.plan.resolve(fk.arg, "__call__")
        if keys:
            return K.join(user_call(dp, _fn(k), args, env) for k in keys)
        if args.tensor:
            dp.unknown(e, f"calling an instance of {fk.arg} (its forward is not the candidate's)")
        return UNKNOWN
    if t in (Tag.TORCHMOD, Tag.TORCHMODS):
        name = fk.arg or "sequential"
        dp.compute(e, name, f"calling a torch.nn layer ({name})")
        return TENSOR
    if t in (Tag.EXT, Tag.CPPEXT) and fk.arg:  # f = ext.fn; f(x)
        return extension_call(dp, e, t, fk.arg, args)
    if t is Tag.CALLABLE:  # analysed where defined (parameters unknown): what it returns, or its arguments' data
        for cid in fk.names:
            dp.sink.add(K.CALLS_CALLABLE + cid)
        rets = [dp.callable_rets.get(cid, UNKNOWN) for cid in fk.names]
        return K.tainted(UNKNOWN, [*rets, *args.kinds()])
    if t in (Tag.RAWKERNEL, Tag.CCKERNEL):
        dp.sink.add("cuda_nvrtc")
        return NONE
    if t is Tag.RECORDTYPE:
        names = fk.arg.split(",") if fk.arg else []
        fields = dict(zip(names, args.pos, strict=False))
        fields.update({n: k for n, k in args.kw.items() if n in names})
        extra = K.join(k for k in (args.star, args.kwstar) if k is not None)
        return K.record((n, merge(fields.get(n, UNSET), extra)) for n in names)
    if fk.maybe_tensor and not args.tensor:  # f = x.clamp; f(min=0): a tensor's method, bound to it
        dp.unknown(e, "calling a value that may be a tensor or a tensor's bound method")
    elif args.tensor:
        dp.unknown(e, "calling it with tensor arguments")
    escape(dp, args)
    return K.tainted(UNKNOWN, args.kinds())


def qualified(dp: Analysis, e: ast.Call, q: str, args: CallArgs, env) -> Kind:
    """A call of an imported name (``functools.partial`` is followed here, the rest is library code)."""
    if q == "functools.partial":
        return _partial(dp, e, args, env)
    fn = args.nodes[0] if len(args.nodes) == 1 and not args.kw else None
    if q in JIT_DECORATORS and isinstance(fn, ast.Name) and fn.id in dp.ix.functions:
        return Kind(Tag.JIT, fn.id)  # k = triton.jit(fn) of a module function: the decorator (`kernel_sigs`)
    if q in CACHING_WRAPPERS:  # lru_cache(fn), cache(fn): calls reach fn; lru_cache(maxsize=8): a wrapper
        if fn is not None and args.pos[0].tag in (Tag.USERFN, Tag.CALLABLE):
            return args.pos[0]
        if not args.pos and not args.tensor:
            return Kind(Tag.REF, "functools.cache")
    return library_call(dp, e, q, args)


def _partial(dp: Analysis, e: ast.Call, args: CallArgs, env) -> Kind:
    """``functools.partial(f, *bound)``: the bound arguments reach ``f`` now (a launch is checked, a
    library function computes on them), later calls continue after them."""
    if not args.pos or args.star is not None:
        if args.tensor:
            dp.unknown(e, "functools.partial")
        escape(dp, args)
        return UNKNOWN
    fk = args.pos[0]
    rest = CallArgs(args.pos[1:], args.nodes[1:], args.kw, args.kwnodes, None, args.kwstar)
    n = len(rest.pos)
    if fk.tag is Tag.USERFN:
        user_call(dp, fk, rest, env)
        return Kind(Tag.USERFN, fk.arg, bound=fk.bound + n)
    if fk.tag is Tag.LAUNCHER:
        check_launch(dp, e, fk.names, rest, fk.bound)
        return Kind(Tag.LAUNCHER, fk.arg, fk.inner, bound=fk.bound + n)
    if fk.tag is Tag.REF:
        if rest.tensor:
            library_call(dp, e, fk.arg, rest)
        return fk
    if fk.tag in (Tag.CALLABLE, Tag.JIT, Tag.RAWKERNEL, Tag.CCKERNEL):  # a lambda's parameters may be anything
        return fk
    if fk.tag is Tag.CLASS:
        class_call(dp, e, fk.arg, rest, env)
        return UNKNOWN
    if rest.tensor:
        dp.unknown(e, "functools.partial")
    escape(dp, args)
    return UNKNOWN


def class_call(dp: Analysis, e: ast.AST, cname: str, args: CallArgs, env) -> Kind:
    """Building an instance of the candidate's class: its ``__init__`` (own or inherited) gets the
    arguments; a dataclass or NamedTuple stores them as its fields."""
    keys = dp.plan.resolve(cname, "__init__")
    if keys:
        user_call(dp, _fn(keys[0]), args, env)
    elif cname in dp.plan.fields:
        # every field of the class and of its own bases; which positional argument lands in which field
        # depends on inheritance, init=False, KW_ONLY...: each positional (or unknown) argument may be any field
        names = list(dict.fromkeys(n for c in dp.plan.mro(cname) for n in dp.plan.fields.get(c, ())))
        if names == dp.plan.fields[cname] and len(args.pos) <= len(names) and args.star is None and plain_fields(
                dp.ix.classes[cname], dp.ix):  # positional arguments in field order
            exact = dict(zip(names, args.pos, strict=False))
            loose = K.join([k for n, k in args.kw.items() if n not in names] + (
                [args.kwstar] if args.kwstar is not None else []))
        else:
            exact, loose = {}, K.join([*args.pos, *(p for p in (args.star, args.kwstar) if p is not None),
                                       *(k for n, k in args.kw.items() if n not in names)])
        for n in names:
            dp.store_self(cname, n, merge(merge(loose, exact.get(n, UNSET)), args.kw.get(n, UNSET)))
    elif args.tensor:
        dp.unknown(e, f"building {cname} (its __init__ is not the candidate's) with tensor arguments")
    return Kind(Tag.USERMOD, cname)


def user_call(dp: Analysis, fk: Kind, args: CallArgs, env) -> Kind:
    """A call of the candidate's function(s) ``fk``: parameters get the arguments (after any already bound
    by functools.partial), the caller's containers get what the function stores into its parameters."""
    out = UNSET
    for name in fk.names:
        key = tuple(name.split(".", 1)) if "." in name else (None, name)
        f = dp.funcs.get(key)
        if f is None and key[1] == "apply" and key[0] in dp.plan.autograd:  # run = Fn.apply; run(x)
            out = merge(out, _apply(dp, key[0], args, env))
            continue
        if f is None:
            out = merge(out, UNKNOWN)
            continue
        binding = bind(f.params, args, f.defaults, fk.bound)
        for p, (k, _) in binding.items():
            dp.seen.add((key, p), k)
        for p, item in dp.mutates.where(key).items():
            node = binding.get(p, (UNSET, None))[1]
            if node is not None:
                dp.mutate(node, item, env, node)
            elif item.maybe_tensor:
                dp.unknown(node or f.node, f"a call of {name} stores into a container the gate cannot follow")
        dp.sink.add(K.CALLS_FUNCTION + name)
        r = dp.rets.get(key)
        out = merge(out, UNKNOWN if r == UNSET else r)
    return UNKNOWN if out == UNSET else out


def super_call(dp: Analysis, e: ast.Call, attr: str, args: CallArgs, env) -> Kind:
    """``super().attr(...)``: the candidate's base class method, or a library base's (nn.Module's): with a
    possible tensor that is compute (only ``__init__`` and stores in init code pass)."""
    for c in dp.plan.mro(dp.cur_cls or "")[1:]:
        if (c, attr) in dp.funcs:
            return user_call(dp, _fn((c, attr)), args, env)
    if args.tensor:
        dp.compute(e, attr, f"super().{attr}() of a library base class with tensor arguments")
    escape(dp, args)
    return NONE if attr == "__init__" else UNKNOWN


def method(dp: Analysis, e: ast.Call, kb: Kind, attr: str, args: CallArgs, env) -> Kind:
    t = kb.tag
    if t in (Tag.EXT, Tag.CPPEXT):
        return extension_call(dp, e, t, attr, args)
    if t is Tag.CTX:
        return ctx_method(dp, e, kb, attr, args)
    if t is Tag.RAWMODULE and attr == "get_function":
        return K.RAWKERNEL
    if t is Tag.PROGRAM and attr == "compile":
        return K.CCMODULE
    if t is Tag.CCMODULE and attr == "get_kernel":
        return K.CCKERNEL
    if t is Tag.SUPER:
        return super_call(dp, e, attr, args, env)
    if t in (Tag.USERMOD, Tag.CLASS):
        return _own_method(dp, e, kb, attr, args, env)
    if t is Tag.REF:
        return qualified(dp, e, f"{kb.arg}.{attr}", args, env)
    if t in (Tag.TORCHMOD, Tag.TORCHMODS):
        if attr in LAYER_SELF_METHODS:  # nn.Linear(...).to(DTYPE), as references build layers: the layer
            return kb
        dp.compute(e, kb.arg or "sequential", f"calling a torch.nn layer method ({attr})")
        return TENSOR
    if t is Tag.SCALAR and attr in ("get", "pop", "setdefault") or (
            t is Tag.SCALAR and attr in ("index", "count") and not args.tensor):  # a table of constants
        return _container_method(dp, e, kb, attr, args, env)
    if t is Tag.SCALAR and attr not in _STORING:  # a number, a string, a shape: with a tensor it computes
        if args.tensor:
            dp.unknown(e, f"method .{attr}() of a Python value with tensor arguments")
        escape(dp, args)
        return K.tainted(UNKNOWN, args.kinds()) if args.tensor else SCALAR
    if t is Tag.OPAQUE:
        if args.tensor:
            dp.unknown(e, f"method .{attr}() of a library object with tensor arguments")
        if attr in T.TENSOR_DATA_METHODS or attr in ("numpy", "__array__", "resize_", "copy_"):
            dp.unknown(e, f"method .{attr}() of a library object (a tensor may be stored there)")
            return UNKNOWN
        return K.tainted(UNKNOWN, args.kinds()) if args.tensor else OPAQUE
    if t is Tag.TENSOR:
        return _tensor_method(dp, e, kb, attr, args)
    if t is Tag.JIT and attr == "run":  # kernel.run(*args, grid=..., warmup=False): the launch generated code uses
        check_launch(dp, e, kb.names, replace(args, kw={k: v for k, v in args.kw.items() if k not in _RUN_OPTIONS}))
        dp.sink.add("triton")
        grid = args.kw.get("grid", NONE)
        if grid.tag is Tag.USERFN:
            user_call(dp, grid, of_kinds([Kind(Tag.META, kb.arg)]), env)
        elif grid.maybe_tensor or grid.tag not in (Tag.SCALAR, Tag.ITEMS, Tag.CALLABLE, Tag.NONE):
            dp.flag(e, f"the grid of {kb.arg}.run() must be a tuple of numbers or a function (kind {grid.tag.value})",
                    "kernel_args")
        return NONE
    if t in (Tag.ITEMS, Tag.TENSORS, Tag.RECORD, Tag.INDEXED, Tag.SCALAR) or (
            t in (Tag.UNKNOWN, Tag.UNSET) and attr in OBJECT_METHODS):
        return _container_method(dp, e, kb, attr, args, env)
    if t in (Tag.UNKNOWN, Tag.UNSET, Tag.META):
        if attr in T.TENSOR_DATA_METHODS:
            return K.DATA
        if attr in T.TENSOR_SCALAR_METHODS:
            return K.tainted(SCALAR, args.kinds())
        if attr in T.TENSOR_VIEW_METHODS:
            _size_args(dp, e, attr, args)
            return K.tainted(UNKNOWN, args.kinds())
        dp.unknown(e, f"method .{attr}()")
        return K.tainted(UNKNOWN, args.kinds())
    if args.tensor:
        dp.unknown(e, f"method .{attr}() with tensor arguments")
    escape(dp, args)
    return K.tainted(UNKNOWN, args.kinds())


def _own_method(dp: Analysis, e: ast.Call, kb: Kind, attr: str, args: CallArgs, env) -> Kind:
    cls = kb.arg
    keys = dp.plan.resolve(cls, attr)
    if keys:
        out = UNSET
        for k in keys:
            a = args
            if kb.tag is Tag.CLASS and dp.plan.offset(k) == 1 and not dp.plan.is_classmethod(k):
                a = CallArgs(args.pos[1:], args.nodes[1:], args.kw, args.kwnodes, args.star, args.kwstar)
            out = merge(out, user_call(dp, _fn(k), a, env))
        return out
    if dp.plan.jit_method(cls, attr) is not None:
        return NONE
    if attr == "apply" and cls in dp.plan.autograd:
        return _apply(dp, cls, args, env)
    if attr in T.ATTR_REGISTERS and kb.tag is Tag.USERMOD and len(args.nodes) >= 2 and isinstance(
            args.nodes[0], ast.Constant) and isinstance(args.nodes[0].value, str):  # self.register_buffer("w", t)
        dp.store_self(cls, args.nodes[0].value, args.pos[1])              # is self.w = t
        return NONE
    fk = dp.self_kind(cls, attr)
    if fk.tag is Tag.USERFN and kb.tag is Tag.USERMOD and not any("." in n for n in fk.names) and (
            attr in dp.plan.class_stored):
        # a module function stored on the class binds the instance (one stored on the instance does not)
        with_self = CallArgs([kb, *args.pos], [None, *args.nodes], args.kw, args.kwnodes, args.star, args.kwstar)
        return merge(user_call(dp, fk, args, env), user_call(dp, fk, with_self, env))
    return call_value(dp, e, fk, args, env)


def _apply(dp: Analysis, cls: str, args: CallArgs, env) -> Kind:
    """``Fn.apply(*args)`` of an autograd Function: ``forward(ctx, *args)`` (``forward(*args)`` when the class
    has ``setup_context``)."""
    fwd = dp.plan.resolve(cls, "forward")
    if not fwd:
        return TENSOR
    a = args
    if dp.plan.offset(fwd[0]) == 0 and not dp.plan.resolve(cls, "setup_context"):
        a = CallArgs([Kind(Tag.CTX, cls), *args.pos], [None, *args.nodes], args.kw, args.kwnodes, args.star, args.kwstar)
    r = user_call(dp, _fn(fwd[0]), a, env)
    return TENSOR if r in (UNKNOWN, UNSET) else r


def dunder_builtin(dp: Analysis, e: ast.Call, name: str, args: CallArgs, env) -> Kind | None:
    """``len(h)``, ``str(h)``, ``repr(h)``, ``format(h)`` of the candidate's instance run its dunder method:
    what it returns (a tensor's data, say) is what the builtin gives."""
    if not args.pos or args.pos[0].tag is not Tag.USERMOD:
        return None
    if name == "type" and len(args.pos) == 1 and not e.keywords:  # type(self): the candidate's class
        return Kind(Tag.CLASS, args.pos[0].arg)
    names = {"len": ("__len__",), "str": ("__str__", "__repr__"), "repr": ("__repr__",),
             "format": ("__format__", "__str__", "__repr__")}.get(name, ())
    keys = [k for n in names for k in dp.plan.resolve(args.pos[0].arg, n)]
    if not keys:
        return None
    return K.join(user_call(dp, _fn(k), CallArgs(args.pos[1:], args.nodes[1:]), env) for k in keys)


def _container_method(dp: Analysis, e: ast.Call, kb: Kind, attr: str, args: CallArgs, env) -> Kind:
    return K.tainted(_container_result(dp, e, kb, attr, args, env), args.kinds())


def _container_result(dp: Analysis, e: ast.Call, kb: Kind, attr: str, args: CallArgs, env) -> Kind:
    pos = args.positional()
    if attr in ("get", "pop", "index", "count", "setdefault") and pos and pos[0].tag is Tag.TENSOR:
        dp.compute(e, attr, f"a lookup (.{attr}()) keyed by a tensor or tensor data")
    if attr in _STORING:
        if attr in ("extend", "update"):
            item = K.join([*(K.element(k) for k in pos), *args.kw.values()])
        elif attr == "setdefault":  # the key is stored too (``popitem``/``keys`` give it back)
            item = K.join([pos[0], pos[1] if len(pos) > 1 else NONE]) if pos else NONE
        else:
            item = pos[-1] if pos else UNSET
        if isinstance(e.func, ast.Attribute):
            dp.mutate(e.func.value, item, env, e)
        return merge(K.element(kb), item) if attr == "setdefault" else NONE
    if attr in ("get", "pop"):
        return merge(K.element(kb), pos[1] if len(pos) > 1 else NONE)
    if attr == "popitem":
        return K.element(kb)
    if attr in ("values", "copy", "keys"):
        return kb if kb.tag is not Tag.SCALAR else SCALAR
    if attr == "items":
        el = K.element(kb)
        return K.items(K.record([("0", el), ("1", el)]))
    if attr in ("index", "count"):  # where, or how often, a value is among the elements: data when they are
        return K.tainted(SCALAR, [K.element(kb)])
    if attr in ("sort", "reverse", "clear", "remove", "discard"):
        escape(dp, args)
        return NONE
    if kb.tag is Tag.SCALAR or attr in ("format", "join", "startswith", "endswith", "lower", "upper", "strip",
                                       "replace"):
        return UNKNOWN if args.tensor else SCALAR
    dp.unknown(e, f"method .{attr}() of a container")
    return UNKNOWN


_CONVERT = ("; dtype conversions must happen inside the kernel: load the input as it is, convert there "
            "(x.to(tl.float32)) and store in the output's dtype")


def _tensor_method(dp: Analysis, e: ast.Call, kb: Kind, attr: str, args: CallArgs) -> Kind:
    """A method of a tensor (or of tensor data, `K.DATA`: what it gives is data too)."""
    out = K.tainted(TENSOR, [kb, *args.kinds()])
    if attr in T.TENSOR_DATA_METHODS:
        return K.DATA
    if kb.has_data and (attr not in T.TENSOR_VIEW_METHODS or attr in T.COUNTING_VIEWS):
        dp.compute(e, attr, f"method .{attr}() of tensor data (values read out of a tensor, or a tensor built "
                            "from them: its values and its shape are data)")
        return K.DATA
    if attr in T.TENSOR_SCALAR_METHODS:
        return K.tainted(K.SEQ if attr in ("size", "stride") and not e.args else SCALAR, [kb, *args.kinds()])
    if attr == "view" and _dtype_arg(dp, e, args):
        dp.compute(e, "view", "a view as another dtype (its bits read as another type)" + _CONVERT)
        return out
    if attr == "fill_" and any(k.maybe_tensor for k in args.kinds()):
        dp.compute(e, attr, ".fill_() from a tensor (written in the filled tensor's dtype: a conversion)" + _CONVERT)
        return out
    if attr in T.TENSOR_VIEW_METHODS:
        _size_args(dp, e, attr, args)
        return out
    if attr == "to":
        if (any(k.tag is Tag.TENSOR for k in args.kinds()) or _dtype_arg(dp, e, args)) and not _widening(dp, e):
            dp.compute(e, "to", "dtype conversion with .to()" + _CONVERT)
        return out
    if attr in T.TENSOR_CASTS:
        if attr == "type" and not e.args and not e.keywords:
            return K.tainted(SCALAR, [kb])
        if not _widening(dp, e, attr):
            dp.compute(e, attr, f"dtype conversion .{attr}()" + _CONVERT)
        return out
    dp.compute(e, attr, f"{'method .' + attr + '() of tensor data' if kb.has_data else 'tensor method .' + attr + '()'}")
    return out


_WIDE = frozenset({"torch.float32", "torch.float", "torch.float64", "torch.double"})


def _widening(dp: Analysis, e: ast.Call, attr: str = "to") -> bool:
    """A conversion to float32 or float64 by name (``x.float()``, ``x.to(torch.float32)``): from any float or
    small integer dtype it is exact, computes nothing (a no-op on an fp32 input, which LLM answers write "to be
    safe"); the run-time backstop checks that it widened. Narrowing and integer targets stay refused."""
    if attr in ("float", "double"):
        return not e.args and not e.keywords
    def device(a: ast.AST) -> bool:  # x.to(x.device, torch.float32), x.to("cuda", ...)
        return (isinstance(a, ast.Attribute) and a.attr == "device") or (
            isinstance(a, ast.Constant) and isinstance(a.value, str))

    dtypes = [a for a in e.args if not device(a)] + [k.value for k in e.keywords if k.arg == "dtype"]
    others = [k for k in e.keywords if k.arg not in ("dtype", "device", "non_blocking", "copy")]
    return bool(dtypes) and not others and all(dp.ix.qualname(a) in _WIDE for a in dtypes)


def _dtype_arg(dp: Analysis, e: ast.Call, args: CallArgs) -> bool:
    """A positional argument that is (or may be) a dtype, or a ``dtype=`` keyword."""
    return ("dtype" in args.kw or any("dtype" in k.flavours for k in args.kinds())
            or any(_is_dtype(dp, a) for a in e.args))


def _size_args(dp: Analysis, e: ast.AST, attr: str, args: CallArgs) -> None:
    """A view or allocation takes its sizes, indices and offsets from metadata, constants or scalars: one read
    out of a tensor gives a shape that is data (``torch.empty(0, v).shape[1]`` is ``v``)."""
    if attr in T.TENSOR_ARG_VIEWS:
        return
    if any(k.is_tensorish or k.has_data for k in args.kinds()):
        dp.compute(e, attr, f".{attr}() with a size, index or offset taken from a tensor or tensor data")


def _is_dtype(dp: Analysis, node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "dtype":
        return True
    q = dp.ix.qualname(node)
    return bool(q) and q.startswith("torch.") and torch_category(q) == "dtype"


def _is_super(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _fn(key: tuple[str | None, str]) -> Kind:
    return Kind(Tag.USERFN, key[1] if key[0] is None else f"{key[0]}.{key[1]}")

