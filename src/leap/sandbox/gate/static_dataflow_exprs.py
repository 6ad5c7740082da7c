"""Expression kinds for the data-path analysis (`leap.sandbox.gate.static_dataflow`): names, attributes,
subscripts, operators, literals, comprehensions. Default deny: an operator, comparison or indexed write on
a value that may be a tensor is PyTorch compute (calls are in `leap.sandbox.gate.static_dataflow_calls`).
A private attribute (``obj._x``) may only be read from ``self`` or the candidate's own classes and
instances (rule ``private_attr``)."""

from __future__ import annotations

import ast

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate import static_reach as R
from leap.sandbox.gate.static_callargs import of_kinds
from leap.sandbox.gate.static_dataflow_calls import call_kind, user_call
from leap.sandbox.gate.static_gate_tables import torch_category
from leap.sandbox.gate.static_kinds import SCALAR, TENSOR, UNKNOWN, UNSET, Kind, Tag, merge
from leap.sandbox.gate.static_launch import meta_value

_CONSTANTS = {"math": {"pi", "e", "tau", "inf", "nan"}, "cmath": {"pi", "e", "tau", "inf", "nan"}}
_OWN = (Tag.USERMOD, Tag.CLASS, Tag.SUPER)
# methods that store their argument into the container (taken as a value, `ExprKinds._attr`)
_STORE_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "extendleft",
                            "push", "put", "put_nowait"})


class ExprKinds:
    """Mixin of `DataPath`: the kind of an expression (it flags compute through ``self.compute`` /
    ``self.unknown`` and binds names through ``self._bind``)."""

    def _kind(self, e: ast.AST | None, env: dict[str, Kind], stmt: ast.AST | None) -> Kind:
        if e is None:
            return UNKNOWN
        if isinstance(e, ast.Constant):
            return K.NONE if e.value is None else SCALAR
        if isinstance(e, ast.Name):
            return self._name(e, env)
        if isinstance(e, ast.Attribute):
            return self._attr(e, env, stmt)
        if isinstance(e, ast.Subscript):
            return self._subscript(e, env, stmt)
        if isinstance(e, ast.Slice):
            ks = [self._kind(p, env, stmt) for p in (e.lower, e.upper, e.step) if p is not None]
            return K.tainted(TENSOR, ks) if any(k.maybe_tensor for k in ks) else SCALAR
        if isinstance(e, ast.Tuple) and not any(isinstance(x, ast.Starred) for x in e.elts):
            ks = [self._kind(x, env, stmt) for x in e.elts]
            if len(set(ks)) > 1 and any(k.tag is not Tag.SCALAR for k in ks):
                return K.record((str(i), k) for i, k in enumerate(ks))  # (kernel, block), (x, n): each keeps its kind
            return _items(ks)
        if isinstance(e, ast.Tuple | ast.List | ast.Set):
            return _items([self._kind(x, env, stmt) for x in e.elts])
        if isinstance(e, ast.Dict):
            keys = [self._kind(x, env, stmt) for x in e.keys if x is not None]
            values = [self._kind(x, env, stmt) for x in e.values]
            return _items(values + [k for k in keys if k.tag not in (Tag.SCALAR, Tag.NONE)])
        if isinstance(e, ast.BinOp):
            kl, kr = self._kind(e.left, env, stmt), self._kind(e.right, env, stmt)
            name = T.BINOP_NAMES.get(type(e.op).__name__, "op")
            if _bias_of_a_product(e) and not _bias_rewritten(self.ix.tree):  # x @ W.T + self.bias: the linear
                name = "linear"  # op itself (allowed where linear is), when no code but __init__ writes a bias
            if Tag.TENSOR in (kl.tag, kr.tag):
                self.compute(e, name, f"{_on(kl, kr)} operator ({name})")
            elif kl.maybe_tensor or kr.maybe_tensor:
                self.unknown(e, f"operator ({name})")
            return self.binop(kl, kr)
        if isinstance(e, ast.UnaryOp):
            k = self._kind(e.operand, env, stmt)
            if isinstance(e.op, ast.Not):
                self.truth(e.operand, k)
                return K.tainted(SCALAR, [k])
            if k.tag is Tag.TENSOR:
                self.compute(e, type(e.op).__name__.lower(), f"unary {_on(k)} operator")
            elif k.maybe_tensor:
                self.unknown(e, "unary operator")
            return k
        if isinstance(e, ast.BoolOp):  # after an ``and`` part that never holds, the rest never runs
            ks, dead = [], False
            for x in e.values:
                with self.dead(dead):
                    ks.append(self._kind(x, env, stmt))
                dead = dead or (isinstance(e.op, ast.And) and R.never(x, self.scopes[-1]))
            for x, k in zip(e.values[:-1], ks, strict=False):
                self.truth(x, k)
            return K.join(ks)
        if isinstance(e, ast.Compare):
            return self._compare(e, env, stmt)
        if isinstance(e, ast.IfExp):
            self.truth(e.test, self._kind(e.test, env, stmt))
            with self.dead(R.never(e.test, self.scopes[-1])):
                body = self._kind(e.body, env, stmt)
            return merge(body, self._kind(e.orelse, env, stmt))
        if isinstance(e, ast.Call):
            return call_kind(self, e, env, stmt)
        if isinstance(e, ast.Lambda):
            return self.callable_kind(e, env)
        if isinstance(e, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            return self._comprehension(e, env, stmt)
        if isinstance(e, ast.NamedExpr):  # joins: it may bind only on some paths (and, or, a comprehension)
            k = self._kind(e.value, env, stmt)
            name = e.target.id
            for scope_env in [env] + ([self.comp_env] if self.comp_env is not None else []):
                self._bind_name(name, merge(scope_env.get(name, UNSET), k), scope_env)
            return k
        if isinstance(e, ast.Starred):
            return self._kind(e.value, env, stmt)
        if isinstance(e, ast.Yield | ast.YieldFrom):  # what iterating the generator gives; send() gives anything
            k = self._kind(e.value, env, stmt) if e.value is not None else K.NONE
            if self.yielded:
                self.yielded[-1].append(K.element(k) if isinstance(e, ast.YieldFrom) else k)
            return UNKNOWN
        if isinstance(e, ast.JoinedStr):
            return K.join([SCALAR, *(self._kind(v, env, stmt) for v in e.values)])
        if isinstance(e, ast.FormattedValue):  # the text of a tensor is its data; an instance's, its __str__'s
            k = self._kind(e.value, env, stmt)
            if e.format_spec is not None:
                self._kind(e.format_spec, env, stmt)
            if k.tag is Tag.USERMOD:
                keys = [x for n in ("__format__", "__str__", "__repr__") for x in self.plan.resolve(k.arg, n)]
                k = K.join(user_call(self, Kind(Tag.USERFN, f"{x[0]}.{x[1]}"), of_kinds([]), env) for x in keys)
            return K.DATA if k.maybe_tensor and k.tag is not Tag.UNSET else SCALAR
        for child in ast.iter_child_nodes(e):
            if isinstance(child, ast.expr):
                self._kind(child, env, stmt)
        return UNKNOWN

    def _compare(self, e: ast.Compare, env: dict[str, Kind], stmt) -> Kind:
        """A comparison of a possible tensor computes; ``in`` does when it looks for a tensor or its data, or
        looks into one (``v in range(0, 1 << 31)`` is a sign test; ``"k" in kwargs`` is not)."""
        ks = [self._kind(x, env, stmt) for x in [e.left, *e.comparators]]
        tensor = unknown = False
        for (a, b), op in zip(zip(ks, ks[1:], strict=False), e.ops, strict=True):
            if isinstance(op, ast.Is | ast.IsNot):
                continue
            if isinstance(op, ast.In | ast.NotIn):
                tensor = tensor or a.tag is Tag.TENSOR or b.tag is Tag.TENSOR
                unknown = unknown or a.maybe_tensor
            else:
                tensor = tensor or Tag.TENSOR in (a.tag, b.tag)
                unknown = unknown or a.maybe_tensor or b.maybe_tensor
        if tensor:
            self.compute(e, "compare", f"{_on(*ks)} comparison")
            return K.tainted(TENSOR, ks)
        if unknown:
            self.unknown(e, "comparison")
        return SCALAR

    def _comprehension(self, e, env: dict[str, Kind], stmt) -> Kind:
        """A comprehension runs its body any number of times: iterated to a fixpoint like a loop; a walrus
        in it binds in the enclosing function."""
        outer = self.comp_env if self.comp_env is not None else env
        result: list[Kind] = []

        def one(inner, e=e):
            saved, self.comp_env = self.comp_env, outer
            try:
                for g in e.generators:
                    ki = self._kind(g.iter, inner, stmt)
                    item = self.iterate(g.iter, ki)
                    self._bind_local(g.target, item, inner)
                    for c in g.ifs:
                        self.truth(c, self._kind(c, inner, stmt))
                if isinstance(e, ast.DictComp):
                    kk = self._kind(e.key, inner, stmt)
                    kv = self._kind(e.value, inner, stmt)
                    result.append(kv if kk.tag in (Tag.SCALAR, Tag.NONE) else merge(kv, kk))
                else:
                    result.append(self._kind(e.elt, inner, stmt))
            finally:
                self.comp_env = saved
            return None

        inner = dict(env)
        self._loop(inner, one)
        own = {n.id for g in e.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        for n, k in inner.items():  # what its body stored into enclosing containers (box.append(x) in it)
            if n in env and n not in own and k != env[n]:
                env[n] = merge(env[n], k)
        return _items([result[-1]]) if result else K.items(UNSET)

    def _bind_local(self, target: ast.AST, kind: Kind, env: dict[str, Kind]) -> None:
        """Bind a comprehension's own target (it stays in the comprehension)."""
        if isinstance(target, ast.Name):
            env[target.id] = kind
        elif isinstance(target, ast.Tuple | ast.List):
            if kind.tag is Tag.INDEXED and len(target.elts) == 2:
                self._bind_local(target.elts[0], SCALAR, env)
                self._bind_local(target.elts[1], kind.inner or UNSET, env)
                return
            for i, x in enumerate(target.elts):
                sub = K.field(kind, i) if kind.tag is Tag.RECORD else (
                    SCALAR if kind.tag is Tag.SCALAR else K.element(kind))
                self._bind_local(x.value if isinstance(x, ast.Starred) else x, sub, env)
        else:
            self._bind(target, kind, env, target)

    def _name(self, e: ast.Name, env: dict[str, Kind]) -> Kind:
        if e.id in env:
            if isinstance(self.scopes[-1], ast.Module):  # module names: every value they get anywhere
                return merge(env[e.id], self.module.get(e.id))
            return env[e.id]
        if e.id in ("self", "cls") and self.cur_cls is not None:
            return Kind(Tag.USERMOD if e.id == "self" else Tag.CLASS, self.cur_cls)
        q = self.ix.qualname(e)
        if q is not None:
            return self.ref(e, q)
        if e.id in self.ix.jit:
            return Kind(Tag.JIT, e.id)
        if e.id in self.ix.classes:
            return Kind(Tag.CLASS, e.id)
        if (None, e.id) in self.funcs:
            return Kind(Tag.USERFN, e.id)
        if e.id in ("True", "False", "None"):
            return SCALAR
        return self.module_kind(e.id)

    def _subscript(self, e: ast.Subscript, env: dict[str, Kind], stmt) -> Kind:
        kv = self._kind(e.value, env, stmt)
        if kv.tag is Tag.JIT:  # kernel[grid]: a grid lambda or function is called by Triton with meta
            meta = Kind(Tag.META, kv.arg)
            if isinstance(e.slice, ast.Lambda):
                saved, self.meta_kernels = self.meta_kernels, None
                try:
                    ks = self.callable_kind(e.slice, env, meta)
                finally:
                    self.meta_kernels = saved
            else:
                ks = self._kind(e.slice, env, stmt)
            if ks.tag is Tag.USERFN:
                user_call(self, ks, of_kinds([meta]), env)
            return Kind(Tag.LAUNCHER, kv.arg, ks)
        ks = self._kind(e.slice, env, stmt)
        key = e.slice.value if isinstance(e.slice, ast.Constant) else None
        if kv.tag is Tag.META:
            return meta_value(self, kv, key) if isinstance(key, str) else UNKNOWN
        if kv.tag is Tag.RECORD and isinstance(key, str | int) and not isinstance(key, bool):
            return K.field(kv, key)
        if kv.tag is Tag.TENSOR:
            if ks.tag is Tag.TENSOR:
                self.compute(e, "index", f"indexing {_on(kv)} with a tensor or tensor data (gather)")
            elif ks.maybe_tensor:
                self.unknown(e, "indexing a tensor")
            return K.tainted(kv, [ks])
        if kv.tag is Tag.USERMOD:  # h[x] runs the class's __getitem__
            keys = self.plan.resolve(kv.arg, "__getitem__")
            if keys:
                return K.join(user_call(self, Kind(Tag.USERFN, f"{k[0]}.{k[1]}"), of_kinds([ks]), env)
                              for k in keys)
        if ks.tag is Tag.TENSOR:  # table[v]: a lookup keyed by data computes with it
            self.compute(e, "index", "a lookup (indexing a container) keyed by a tensor or tensor data")
        return K.tainted(K.element(kv), [ks])

    def ref(self, node: ast.AST, q: str) -> Kind:
        """Kind of a reference to an imported name used as a value (not called)."""
        root, last = q.split(".")[0], q.rsplit(".", 1)[-1]
        if q.startswith("torch."):
            cat = torch_category(q)
            if cat == "compute" and self.mode == "path":
                self.compute(node, last, f"reference to {q}")
            if cat == "dtype":  # memory formats and layouts are not dtypes
                return SCALAR if last in _LAYOUTS else K.DTYPE
        if root in ("numpy", "cupy") and last in T.ARRAY_LIB_DTYPES and any(c.isdigit() for c in last):
            return K.DTYPE  # np.float32
        if last in _CONSTANTS.get(root, ()):
            return SCALAR  # math.pi
        if q.startswith("triton.language.") and last in T.TORCH_DTYPES | {"constexpr"}:
            return K.DTYPE if last != "constexpr" else SCALAR
        return K.ref(q)

    def _attr(self, e: ast.Attribute, env: dict[str, Kind], stmt) -> Kind:
        if isinstance(e.value, ast.Name) and e.value.id == "self" and "self" not in env:
            return self._member(self.cur_cls, e.attr, bound=True)
        q = self.ix.qualname(e)
        if q is not None:
            return self.ref(e, q)
        kv = self._kind(e.value, env, stmt)
        private = e.attr.startswith("_") and not (e.attr.startswith("__") and e.attr.endswith("__"))
        if private and kv.tag not in _OWN:
            self.flag(e, f"private attribute .{e.attr} of a value that is not the candidate's own "
                         "(self, its classes and their instances)", "private_attr")
        if e.attr in _STORE_METHODS and kv.tag not in (*_OWN, Tag.REF, Tag.TORCHMOD, Tag.TORCHMODS):
            # a container's storing method taken as a value (``Config(pre_hook=box.update)``): whoever calls it
            # (library code, unseen) may store anything, tensors included
            self.mutate(e.value, UNKNOWN, env, e)
            return UNKNOWN
        if kv.tag is Tag.RECORD:
            return K.field(kv, e.attr)
        if kv.tag is Tag.META:
            return UNKNOWN
        if kv.has_data and e.attr not in T.TENSOR_VIEW_ATTRS:
            self.compute(e, e.attr, f"attribute .{e.attr} of tensor data (its values and its shape are data)")
            return K.DATA
        if kv.maybe_tensor:
            if e.attr in T.TENSOR_SCALAR_ATTRS:
                return K.tainted(_META_ATTRS.get(e.attr, SCALAR), [kv])
            return kv if kv.tag is Tag.TENSOR and e.attr in T.TENSOR_VIEW_ATTRS else K.tainted(UNKNOWN, [kv])
        if kv.tag is Tag.TORCHMOD or kv.tag is Tag.TORCHMODS:
            return UNKNOWN if e.attr in self.plan.foreign_stores else layer_attr(kv, e.attr)
        if kv.tag is Tag.CTX:
            return self.ctx_attr(kv, e.attr)
        if kv.tag in (Tag.EXT, Tag.CPPEXT):  # a function of the extension
            return Kind(kv.tag, e.attr)
        if kv.tag is Tag.USERMOD:
            return self._member(kv.arg, e.attr, bound=True)
        if kv.tag is Tag.CLASS:
            return self._member(kv.arg, e.attr, bound=False)
        if kv.tag is Tag.REF:
            return self.ref(e, f"{kv.arg}.{e.attr}")
        if kv.tag in (Tag.SCALAR, Tag.OPAQUE):  # unless the candidate stored something under that name
            return UNKNOWN if e.attr in self.plan.foreign_stores else kv
        return UNKNOWN

    def _member(self, cls: str | None, attr: str, bound: bool) -> Kind:
        """``obj.attr`` of the candidate's class ``cls``: a kernel, a (bound) method, or a stored value."""
        jit = self.plan.jit_method(cls, attr)
        if jit is not None:
            return Kind(Tag.JIT, jit)
        keys = self.plan.resolve(cls, attr)
        if not keys and attr == "apply" and cls in self.plan.autograd:  # Fn.apply as a value
            return Kind(Tag.USERFN, f"{cls}.apply")
        if keys and (bound or all(self.plan.is_static_or_class(k) for k in keys)):
            fn = Kind(Tag.USERFN, "|".join(sorted(f"{k[0]}.{k[1]}" for k in keys)))
            if any(self.plan.is_property(k) for k in keys):  # reading a property runs it
                return user_call(self, fn, of_kinds([]), {})
            return fn
        return self.self_kind(cls, attr)


_META_ATTRS = {"shape": K.SEQ, "dtype": K.DTYPE}
_LAYOUTS = ("strided", "contiguous_format", "channels_last", "preserve_format")


def layer_attr(kv: Kind, attr: str) -> Kind:
    """``layer.attr`` of a torch.nn layer: its weights are tensors, its known settings (in_features, eps,
    ...) are scalars, a sub-layer is a layer; anything else (a buffer registered on it, a tensor stored as
    an attribute) may be a tensor."""
    if _weight_like(attr):
        return TENSOR
    if attr in T.TORCH_MODULE_CONFIG_ATTRS:
        return SCALAR
    return kv if attr in ("out_proj",) else UNKNOWN


def _weight_like(attr: str) -> bool:
    return attr in T.TORCH_MODULE_TENSOR_ATTRS or attr.startswith(("weight", "bias", "running_", "in_proj"))


def _on(*ks: Kind) -> str:
    """"tensor", or "tensor-data" when a kind is data read out of a tensor (for messages)."""
    return "tensor-data" if any(k.has_data for k in ks) else "tensor"


def _items(ks: list[Kind]) -> Kind:
    """Kind of a literal container of values of kinds ``ks``."""
    if ks and all(k.tag is Tag.SCALAR for k in ks):
        return K.items(K.join(ks))
    if any(k.has_data for k in ks):
        return K.DATA
    if any(k.tag in (Tag.TENSOR, Tag.TENSORS) for k in ks):
        return K.TENSORS
    return K.items(K.join(ks))


_PRODUCTS = frozenset({"mm", "matmul", "linear", "bmm"})


def _bias_rewritten(tree: ast.Module) -> bool:
    """Whether code other than an ``__init__`` writes an attribute named ``bias`` (stores into it or through it,
    ``setattr``, an in-place method: ``self.bias.resize_(x.shape); self.bias[:] = x`` made a residual add
    pass as the bias of a linear, red-team pass 2026-12-05)."""
    inits = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "__init__"
             for n in ast.walk(f)}

    def writes(n: ast.AST) -> bool:
        if isinstance(n, ast.Attribute) and n.attr == "bias" and isinstance(n.ctx, ast.Store | ast.Del):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Attribute):
            return n.value.attr == "bias"
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Attribute):
            return n.func.value.attr == "bias" and n.func.attr.endswith("_")
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr"):
            return len(n.args) > 1 and isinstance(n.args[1], ast.Constant) and n.args[1].value == "bias"
        return False

    return any(writes(n) for n in ast.walk(tree) if id(n) not in inits)


def _bias_of_a_product(e: ast.BinOp) -> bool:
    """``a @ b + self.bias`` or ``torch.mm(x, w.t()) + self.fc.bias``: a product plus a layer's bias, in either
    order."""
    def product(x: ast.AST) -> bool:
        if isinstance(x, ast.BinOp) and isinstance(x.op, ast.MatMult):
            return True
        f = x.func if isinstance(x, ast.Call) else None
        return isinstance(f, ast.Attribute | ast.Name) and (f.attr if isinstance(f, ast.Attribute) else f.id) in _PRODUCTS

    return isinstance(e.op, ast.Add) and any(product(a) and isinstance(b, ast.Attribute) and b.attr == "bias"
                                             for a, b in ((e.left, e.right), (e.right, e.left)))
