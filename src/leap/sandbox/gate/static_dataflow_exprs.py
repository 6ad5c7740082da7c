"""Expression kinds for the data-path analysis (`leap.sandbox.gate.static_dataflow`): names, attributes,
subscripts, operators, literals and containers. Default deny: an operator, comparison or indexed write on
a value that may be a tensor is PyTorch compute (calls are in `leap.sandbox.gate.static_dataflow_calls`)."""

from __future__ import annotations

import ast

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate.static_dataflow_calls import call_kind
from leap.sandbox.gate.static_gate_tables import torch_category
from leap.sandbox.gate.static_kinds import SCALAR, TENSOR, UNKNOWN, UNSET, Kind, Tag, merge

_CONSTANTS = {"math": {"pi", "e", "tau", "inf", "nan"}, "cmath": {"pi", "e", "tau", "inf", "nan"}}


class ExprKinds:
    """Mixin of `DataPath`: the kind of an expression (it flags compute through ``self.compute`` /
    ``self.unknown`` and binds names through ``self._bind``)."""

    # --- expressions ------------------------------------------------------------------------------
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
            return TENSOR if any(k.maybe_tensor for k in ks) else SCALAR
        if isinstance(e, ast.Tuple | ast.List | ast.Set):
            return _items([self._kind(x, env, stmt) for x in e.elts])
        if isinstance(e, ast.Dict):
            for x in e.keys:
                self._kind(x, env, stmt)
            return _items([self._kind(x, env, stmt) for x in e.values])
        if isinstance(e, ast.BinOp):
            kl, kr = self._kind(e.left, env, stmt), self._kind(e.right, env, stmt)
            name = T.BINOP_NAMES.get(type(e.op).__name__, "op")
            if TENSOR in (kl, kr):
                self.compute(e, name, f"tensor operator ({name})")
            elif kl.maybe_tensor or kr.maybe_tensor:
                self.unknown(e, f"operator ({name})")
            return binop_kind(kl, kr)
        if isinstance(e, ast.UnaryOp):
            k = self._kind(e.operand, env, stmt)
            if isinstance(e.op, ast.Not):
                return SCALAR
            if k == TENSOR:
                self.compute(e, type(e.op).__name__.lower(), "unary tensor operator")
            elif k.maybe_tensor:
                self.unknown(e, "unary operator")
            return k
        if isinstance(e, ast.BoolOp):
            out = UNSET
            for x in e.values:
                out = merge(out, self._kind(x, env, stmt))
            return out
        if isinstance(e, ast.Compare):
            ks = [self._kind(x, env, stmt) for x in [e.left, *e.comparators]]
            numeric = any(not isinstance(op, ast.Is | ast.IsNot | ast.In | ast.NotIn) for op in e.ops)
            if numeric and TENSOR in ks:
                self.compute(e, "compare", "tensor comparison")
                return TENSOR
            if numeric and any(k.maybe_tensor for k in ks):
                self.unknown(e, "comparison")
            return SCALAR
        if isinstance(e, ast.IfExp):
            self._kind(e.test, env, stmt)
            return merge(self._kind(e.body, env, stmt), self._kind(e.orelse, env, stmt))
        if isinstance(e, ast.Call):
            return call_kind(self, e, env, stmt)
        if isinstance(e, ast.Lambda):
            return self.callable_kind(e, env, SCALAR if id(e) in self.grid_lambdas else UNKNOWN)
        if isinstance(e, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            inner = dict(env)
            for g in e.generators:
                ki = self._kind(g.iter, inner, stmt)
                self._bind(g.target, SCALAR if is_range(g.iter) else K.element(ki), inner, stmt)
                for c in g.ifs:
                    self._kind(c, inner, stmt)
            part = e.value if isinstance(e, ast.DictComp) else e.elt
            if isinstance(e, ast.DictComp):
                self._kind(e.key, inner, stmt)
            return _items([self._kind(part, inner, stmt)])
        if isinstance(e, ast.NamedExpr):
            k = self._kind(e.value, env, stmt)
            self._bind(e.target, k, env, stmt)
            return k
        if isinstance(e, ast.Starred):
            return self._kind(e.value, env, stmt)
        if isinstance(e, ast.JoinedStr | ast.FormattedValue):
            for child in ast.iter_child_nodes(e):
                self._kind(child, env, stmt)
            return SCALAR
        for child in ast.iter_child_nodes(e):
            if isinstance(child, ast.expr):
                self._kind(child, env, stmt)
        return UNKNOWN

    def _name(self, e: ast.Name, env: dict[str, Kind]) -> Kind:
        if e.id in env:
            return env[e.id]
        q = self.ix.qualname(e)
        if q is not None:
            return self.ref(e, q)
        if e.id in self.ix.jit:
            return K.JIT
        if e.id in self.ix.classes:
            return Kind(Tag.CLASS, e.id)
        if e.id in self.ix.functions:
            return Kind(Tag.USERFN, e.id)
        if e.id in ("True", "False", "None"):
            return SCALAR
        return self.module_kinds.get(e.id, UNKNOWN)

    def _subscript(self, e: ast.Subscript, env: dict[str, Kind], stmt) -> Kind:
        kv = self._kind(e.value, env, stmt)
        ks = self._kind(e.slice, env, stmt)
        if kv.tag is Tag.JIT:
            return K.LAUNCHER
        if kv == TENSOR:
            if ks == TENSOR:
                self.compute(e, "index", "indexing a tensor with a tensor (gather)")
            elif ks.tag in (Tag.UNKNOWN, Tag.UNSET, Tag.TENSORS):
                self.unknown(e, "indexing a tensor")
            return TENSOR
        if kv.tag in (Tag.UNKNOWN, Tag.UNSET) and ks == TENSOR:
            self.unknown(e, "indexing with a tensor")
        return K.element(kv)

    def ref(self, node: ast.AST, q: str) -> Kind:
        """Kind of a reference to an imported name used as a value (not called)."""
        root, last = q.split(".")[0], q.rsplit(".", 1)[-1]
        if q.startswith("torch."):
            cat = torch_category(q)
            if cat == "compute":
                self.compute(node, last, f"reference to {q}")
            if cat == "dtype":
                return SCALAR
        numeric_dtype = root in ("numpy", "cupy") and last in T.ARRAY_LIB_SAFE and any(c.isdigit() for c in last)
        if last in _CONSTANTS.get(root, ()) or numeric_dtype:  # math.pi, np.float32
            return SCALAR
        if q.startswith("triton.language.") and last in T.TORCH_DTYPES | {"constexpr"}:
            return SCALAR
        return K.ref(q)

    def _attr(self, e: ast.Attribute, env: dict[str, Kind], stmt) -> Kind:
        if isinstance(e.value, ast.Name) and e.value.id == "self" and "self" not in env:
            return self.self_kind(self.cur_cls, e.attr)
        q = self.ix.qualname(e)
        if q is not None:
            return self.ref(e, q)
        kv = self._kind(e.value, env, stmt)
        if kv.maybe_tensor:
            if e.attr in T.TENSOR_SCALAR_ATTRS:
                return SCALAR
            return TENSOR if kv == TENSOR and e.attr in T.TENSOR_VIEW_ATTRS else UNKNOWN
        if kv.tag is Tag.TORCHMOD or kv.tag is Tag.TORCHMODS:
            return TENSOR if _weight_like(e.attr) else (kv if e.attr in ("out_proj",) else SCALAR)
        if kv.tag is Tag.USERMOD:
            return self.self_kind(kv.arg, e.attr)
        if kv.tag is Tag.CLASS and (kv.arg, e.attr) in self.ix.jit_methods:
            return K.JIT
        if kv.tag is Tag.REF:
            return self.ref(e, f"{kv.arg}.{e.attr}")
        if kv.tag in (Tag.SCALAR, Tag.OPAQUE):
            return kv
        return UNKNOWN


def _weight_like(attr: str) -> bool:
    return attr in T.TORCH_MODULE_TENSOR_ATTRS or attr.startswith(("weight", "bias", "running_", "in_proj"))


def _items(ks: list[Kind]) -> Kind:
    """Kind of a literal container of values of kinds ``ks``."""
    if ks and all(k == SCALAR for k in ks):
        return SCALAR
    if any(k.tag in (Tag.TENSOR, Tag.TENSORS) for k in ks):
        return K.TENSORS
    inner = UNSET
    for k in ks:
        inner = merge(inner, k)
    return K.items(inner)


def binop_kind(kl: Kind, kr: Kind) -> Kind:
    if TENSOR in (kl, kr):
        return TENSOR
    if kl == kr == SCALAR:
        return SCALAR
    if {kl.tag, kr.tag} <= {Tag.SCALAR, Tag.OPAQUE}:
        return K.OPAQUE
    if kl.tag is Tag.ITEMS and kl == kr:
        return kl
    return UNKNOWN


def merge_ret(a: Kind | None, b: Kind) -> Kind | None:
    return b if a is None else merge(a, b)


def annot_kind(a: ast.AST | None) -> Kind | None:
    if isinstance(a, ast.Name) and a.id in ("int", "float", "bool", "str"):
        return SCALAR
    if isinstance(a, ast.Attribute) and a.attr == "Tensor":
        return TENSOR
    return None


def is_range(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
