"""Data-path analysis for the static gate.

The *data path* is every function that can run when ModelNew is called: ``forward``/``__call__`` of the
candidate's module classes and everything they reference (helper functions, methods, lambdas, functions
stored as values), but not ``__init__``, the reference ``Model``, the input generators or the
``@triton.jit`` bodies. Over it a small flow-insensitive kind analysis tells tensors from Python scalars,
so ``n = x.numel(); grid = (n + 255) // 256`` passes while ``y = x * 2`` or ``x.sum()`` is PyTorch compute.
It also records which backends' kernels are launched there.
"""

from __future__ import annotations

import ast

from leap.sandbox import static_gate_tables as T
from leap.sandbox.static_gate_tables import torch_category

TENSOR, SCALAR, UNKNOWN = "tensor", "scalar", "unknown"
_ENTRY_METHODS = ("forward", "__call__", "backward")
_EXCLUDED_FUNCS = ("get_inputs", "get_init_inputs", "get_small_inputs")
_JIT_DECORATORS = ("triton.jit", "triton.autotune", "triton.heuristics", "triton.language.jit")


def merge(a: str, b: str) -> str:
    if a == b:
        return a
    if TENSOR in (a, b):
        return TENSOR
    if a == UNKNOWN:
        return b
    if b == UNKNOWN:
        return a
    return UNKNOWN


class ModuleIndex:
    """Imports, aliases, functions, classes and Triton kernels of a candidate module."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.imports: dict[str, str] = {}
        self.aliases: dict[str, str] = {}
        self.functions: dict[str, ast.FunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.defined_names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.imports[a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.imports[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    self.imports[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions[node.name] = node
                self.defined_names.add(node.name)
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
                self.defined_names.add(node.name)
        for _ in range(2):  # aliases of aliases
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    t = node.targets[0]
                    if isinstance(t, ast.Name):
                        q = self.qualname(node.value)
                        if q is not None:
                            self.aliases[t.id] = q
                        elif t.id not in self.aliases:
                            self.defined_names.add(t.id)
        self.jit: set[str] = set()
        for name, fn in self.functions.items():
            for d in fn.decorator_list:
                q = self.qualname(d.func if isinstance(d, ast.Call) else d)
                if q in _JIT_DECORATORS:
                    self.jit.add(name)
        for node in tree.body:  # k = triton.jit(fn)
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and self.qualname(node.value.func) in _JIT_DECORATORS):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.jit.add(t.id)
                        self.aliases.pop(t.id, None)

    def qualname(self, node: ast.AST) -> str | None:
        """Dotted name of an expression rooted at an import (through aliases), else None."""
        if isinstance(node, ast.Name):
            return self.imports.get(node.id) or self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def class_bases(self, cls: ast.ClassDef) -> list[str]:
        return [self.qualname(b) or (b.id if isinstance(b, ast.Name) else "") for b in cls.bases]


class _Func:
    def __init__(self, node: ast.FunctionDef | ast.Lambda, cls: str | None):
        self.node, self.cls = node, cls
        self.params: dict[str, str] = {}
        self.ret = UNKNOWN
        args = node.args
        self.names = [a.arg for a in args.posonlyargs + args.args]
        is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                        for d in getattr(node, "decorator_list", []))
        self.offset = 1 if cls is not None and not is_static else 0


class DataPath:
    """Finds the data-path functions, infers value kinds there, collects violations and launches."""

    def __init__(self, index: ModuleIndex, allowed_ops=()):
        self.ix = index
        self.allowed = [o.lower() for o in allowed_ops]
        self.violations: list[tuple[int, str]] = []
        self.launched: set[str] = set()
        self.flagging = False
        self.cur_cls: str | None = None
        self.module_kinds: dict[str, str] = {}
        self.funcs: dict[tuple[str | None, str], _Func] = {}
        self.self_kinds: dict[str, dict[str, str]] = {}
        self.model_like = {n for n in index.classes if n == "Model"}
        for cname, cls in index.classes.items():
            for stmt in cls.body:
                if isinstance(stmt, ast.FunctionDef):
                    self.funcs[(cname, stmt.name)] = _Func(stmt, cname)
        for fname, fn in index.functions.items():
            if isinstance(fn, ast.FunctionDef):
                self.funcs[(None, fname)] = _Func(fn, None)
        self.autograd = {c for c, node in index.classes.items()
                         if any(b.startswith("torch.autograd") for b in index.class_bases(node))}

    # --- which functions are on the data path ----------------------------------------------------
    def _excluded(self, key: tuple[str | None, str]) -> bool:
        cls, name = key
        if cls in self.model_like or name == "__init__":
            return True
        return cls is None and (name in _EXCLUDED_FUNCS or name in self.ix.jit)

    def included(self) -> list[tuple[str | None, str]]:
        method_names = {k[1] for k in self.funcs if k[0] is not None}
        roots = {k for k in self.funcs if k[0] is not None and k[1] in _ENTRY_METHODS}
        # functions referenced as values anywhere (stored, passed, aliased) may run later
        for node in ast.walk(self.ix.tree):
            if isinstance(node, ast.Call):
                continue
            for ref in self._value_refs(node):
                roots.add(ref)
        todo = [k for k in roots if k in self.funcs and not self._excluded(k)]
        seen = set(todo)
        while todo:
            key = todo.pop()
            for node in ast.walk(self.funcs[key].node):
                refs = []
                if isinstance(node, ast.Name) and (None, node.id) in self.funcs:
                    refs.append((None, node.id))
                elif isinstance(node, ast.Attribute) and node.attr in method_names:
                    refs += [k for k in self.funcs if k[1] == node.attr and k[0] is not None]
                for r in refs:
                    if r not in seen and not self._excluded(r):
                        seen.add(r)
                        todo.append(r)
        return sorted(seen, key=lambda k: (k[0] or "", k[1]))

    def _value_refs(self, node: ast.AST) -> list[tuple[str | None, str]]:
        """Functions named as a value by one of ``node``'s direct children (not called)."""
        out = []
        for child in ast.iter_child_nodes(node):
            if isinstance(node, ast.Call) and child is node.func:
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and (None, child.id) in self.funcs:
                out.append((None, child.id))
            elif (isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name)
                  and child.value.id == "self"):
                out += [k for k in self.funcs if k[0] is not None and k[1] == child.attr]
        return out

    # --- analysis --------------------------------------------------------------------------------
    def run(self) -> None:
        keys = self.included()
        lambdas: list[ast.Lambda] = []  # module- and class-level lambdas run as data path when called
        for node in self.ix.tree.body:  # module-level values: extensions, raw kernels, constants
            if isinstance(node, ast.Assign):
                k = self._value_kind(node.value)
                lambdas += [n for n in ast.walk(node.value) if isinstance(n, ast.Lambda)]
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id not in self.ix.aliases:
                        self.module_kinds[t.id] = k
        for cname, cls in self.ix.classes.items():  # attributes assigned to self anywhere in the class
            kinds: dict[str, str] = {}
            self.self_kinds[cname] = kinds
            if cname in self.model_like:
                continue
            self.cur_cls = cname
            for stmt in cls.body:  # class attributes (act = torch.relu) are reachable as self.act
                if isinstance(stmt, ast.Assign):
                    lambdas += [n for n in ast.walk(stmt.value) if isinstance(n, ast.Lambda)]
                    for t in stmt.targets:
                        if isinstance(t, ast.Name):
                            kinds[t.id] = self._value_kind(stmt.value)
            for _ in range(2):
                for node in ast.walk(cls):
                    self._collect_self(node, kinds)
        for key in keys:
            f = self.funcs[key]
            entry = key[0] is not None and key[1] in _ENTRY_METHODS
            first = 1 if key[0] in self.autograd else 0
            for i, a in enumerate(f.node.args.posonlyargs + f.node.args.args):
                if i < f.offset + first and (f.offset or key[0] in self.autograd):
                    continue
                f.params[a.arg] = _annot_kind(a.annotation) or (TENSOR if entry else UNKNOWN)
            positional = f.node.args.posonlyargs + f.node.args.args
            for a, d in zip(positional[len(positional) - len(f.node.args.defaults):], f.node.args.defaults,
                            strict=True):
                q = self.ix.qualname(d)
                if q is not None:  # def forward(self, x, act=torch.relu)
                    f.params[a.arg] = f"ref:{q}"
            if f.node.args.vararg is not None and entry:
                f.params[f.node.args.vararg.arg] = TENSOR
        for i in range(3):
            self.flagging = i == 2
            for key in keys:
                self._analyze(key)
        for lam in lambdas:
            self._kind(lam.body, {a.arg: UNKNOWN for a in lam.args.args}, lam)

    def _value_kind(self, expr: ast.AST) -> str:
        """Kind of a stored value; a value that wraps a PyTorch compute function (``partial(F.gelu)``)
        counts as a reference to it, so calling it in the data path is compute."""
        k = self._kind(expr, {}, None)
        if k not in (UNKNOWN, "none"):
            return k
        funcs = {id(n.func) for n in ast.walk(expr) if isinstance(n, ast.Call)}
        for n in ast.walk(expr):
            if isinstance(n, ast.Name | ast.Attribute) and id(n) not in funcs and not isinstance(n, ast.Lambda):
                q = self.ix.qualname(n)
                if q and q.startswith("torch.") and torch_category(q) in ("compute", "module"):
                    return f"ref:{q}"
        return k

    def _collect_self(self, node: ast.AST, kinds: dict[str, str]) -> None:
        if isinstance(node, ast.Assign):
            k = self._value_kind(node.value)
            for t in node.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    old = kinds.get(t.attr)
                    kinds[t.attr] = k if old in (None, UNKNOWN, "none") else (merge(old, k) if k != "none" else old)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("register_buffer", "register_parameter") and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            kinds[node.args[0].value] = TENSOR

    def _analyze(self, key: tuple[str | None, str]) -> None:
        f = self.funcs[key]
        env = dict(f.params)
        self.cur_cls = key[0]
        ret = self._body(f.node.body, env)
        f.ret = ret

    def flag(self, node: ast.AST, msg: str) -> None:
        if self.flagging:
            self.violations.append((getattr(node, "lineno", 0), msg))

    def _op_ok(self, name: str) -> bool:
        name = name.lower()
        return any(name == op or name in T.OP_SYNONYMS.get(op, ()) for op in self.allowed)

    def _compute(self, node: ast.AST, name: str, what: str) -> None:
        if not self._op_ok(name):
            self.flag(node, f"PyTorch compute in the data path: {what}")

    # --- statements ------------------------------------------------------------------------------
    def _body(self, stmts: list[ast.stmt], env: dict[str, str]) -> str:
        ret = "none"
        for s in stmts:
            r = self._stmt(s, env)
            if r is not None:
                ret = r if ret == "none" else merge(ret, r)
        return ret if ret != "none" else UNKNOWN

    def _stmt(self, s: ast.stmt, env: dict[str, str]) -> str | None:
        ret = None
        if isinstance(s, ast.Assign):
            k = self._kind(s.value, env, s)
            for t in s.targets:
                self._bind(t, k, env)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self._bind(s.target, self._kind(s.value, env, s), env)
        elif isinstance(s, ast.AugAssign):
            kt, kv = self._kind(s.target, env, s), self._kind(s.value, env, s)
            if TENSOR in (kt, kv):
                name = T.BINOP_NAMES.get(type(s.op).__name__, "op")
                self._compute(s, name, f"in-place tensor operator ({name}_)")
        elif isinstance(s, ast.Return):
            ret = self._kind(s.value, env, s) if s.value is not None else "none"
        elif isinstance(s, ast.Expr):
            self._kind(s.value, env, s)
        elif isinstance(s, ast.For | ast.AsyncFor):
            ki = self._kind(s.iter, env, s)
            self._bind(s.target, SCALAR if _is_range(s.iter) else (TENSOR if ki in (TENSOR, "tensors") else UNKNOWN),
                       env)
            ret = self._merge_ret(ret, self._body(s.body, env))
            ret = self._merge_ret(ret, self._body(s.orelse, env))
        elif isinstance(s, ast.While | ast.If):
            self._kind(s.test, env, s)
            ret = self._merge_ret(ret, self._body(s.body, env))
            ret = self._merge_ret(ret, self._body(s.orelse, env))
        elif isinstance(s, ast.With | ast.AsyncWith):
            for item in s.items:
                k = self._kind(item.context_expr, env, s)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, k, env)
            ret = self._merge_ret(ret, self._body(s.body, env))
        elif isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = {a.arg: _annot_kind(a.annotation) or UNKNOWN for a in s.args.args}
            self._body(s.body, {**env, **inner})
            env[s.name] = UNKNOWN
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Subscript) and self._kind(t.value, env, s) == TENSOR:
                    self._compute(s, "delitem", "deleting tensor items")
        elif isinstance(s, ast.Assert | ast.Raise):
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self._kind(child, env, s)
        return ret

    @staticmethod
    def _merge_ret(a: str | None, b: str) -> str | None:
        if b == UNKNOWN:
            return a
        return b if a is None else merge(a, b)

    def _bind(self, target: ast.AST, kind: str, env: dict[str, str]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = kind
        elif isinstance(target, ast.Tuple | ast.List):
            sub = kind if kind in (TENSOR, SCALAR) else (TENSOR if kind == "tensors" else UNKNOWN)
            for e in target.elts:
                self._bind(e.value if isinstance(e, ast.Starred) else e, sub, env)
        elif isinstance(target, ast.Subscript):
            if self._kind(target.value, env, target) == TENSOR:
                self._compute(target, "copy", "writing into a tensor with indexing (copy_/fill)")
            self._kind(target.slice, env, target)
        elif isinstance(target, ast.Attribute):
            self._kind(target.value, env, target)

    # --- expressions ------------------------------------------------------------------------------
    def _kind(self, e: ast.AST | None, env: dict[str, str], stmt: ast.AST | None) -> str:
        if e is None:
            return UNKNOWN
        if isinstance(e, ast.Constant):
            return "none" if e.value is None else SCALAR
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            q = self.ix.qualname(e)
            if q is not None:
                return self._ref(e, q)
            if e.id in self.ix.jit:
                return "jit"
            if e.id in self.ix.classes:
                return f"class:{e.id}"
            if e.id in self.ix.functions:
                return f"userfn:{e.id}"
            return self.module_kinds.get(e.id, UNKNOWN)
        if isinstance(e, ast.Attribute):
            return self._attr(e, env, stmt)
        if isinstance(e, ast.Subscript):
            kv = self._kind(e.value, env, stmt)
            ks = self._kind(e.slice, env, stmt)
            if kv == TENSOR:
                if ks == TENSOR:
                    self._compute(e, "index", "indexing a tensor with a tensor (gather)")
                return TENSOR
            return SCALAR if kv == SCALAR else (TENSOR if kv == "tensors" else UNKNOWN)
        if isinstance(e, ast.Slice):
            ks = [self._kind(p, env, stmt) for p in (e.lower, e.upper, e.step) if p is not None]
            return TENSOR if TENSOR in ks else SCALAR
        if isinstance(e, ast.Tuple | ast.List | ast.Set):
            ks = [self._kind(x, env, stmt) for x in e.elts]
            if ks and all(k == SCALAR for k in ks):
                return SCALAR
            return "tensors" if TENSOR in ks else UNKNOWN
        if isinstance(e, ast.Dict):
            for x in list(e.keys) + list(e.values):
                self._kind(x, env, stmt)
            return UNKNOWN
        if isinstance(e, ast.BinOp):
            kl, kr = self._kind(e.left, env, stmt), self._kind(e.right, env, stmt)
            if TENSOR in (kl, kr):
                name = T.BINOP_NAMES.get(type(e.op).__name__, "op")
                self._compute(e, name, f"tensor operator ({name})")
                return TENSOR
            return SCALAR if kl == kr == SCALAR else UNKNOWN
        if isinstance(e, ast.UnaryOp):
            k = self._kind(e.operand, env, stmt)
            if k == TENSOR:
                self._compute(e, type(e.op).__name__.lower(), "unary tensor operator")
            return k
        if isinstance(e, ast.BoolOp):
            ks = [self._kind(x, env, stmt) for x in e.values]
            out = ks[0]
            for k in ks[1:]:
                out = merge(out, k)
            return out
        if isinstance(e, ast.Compare):
            ks = [self._kind(x, env, stmt) for x in [e.left, *e.comparators]]
            numeric = any(not isinstance(op, ast.Is | ast.IsNot | ast.In | ast.NotIn) for op in e.ops)
            if TENSOR in ks and numeric:
                self._compute(e, "compare", "tensor comparison")
                return TENSOR
            return SCALAR
        if isinstance(e, ast.IfExp):
            self._kind(e.test, env, stmt)
            return merge(self._kind(e.body, env, stmt), self._kind(e.orelse, env, stmt))
        if isinstance(e, ast.Call):
            return self._call(e, env, stmt)
        if isinstance(e, ast.Lambda):
            self._kind(e.body, {**env, **{a.arg: UNKNOWN for a in e.args.args}}, stmt)
            return UNKNOWN
        if isinstance(e, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            inner = dict(env)
            for g in e.generators:
                ki = self._kind(g.iter, inner, stmt)
                self._bind(g.target, SCALAR if _is_range(g.iter) else (TENSOR if ki in (TENSOR, "tensors")
                                                                       else UNKNOWN), inner)
                for c in g.ifs:
                    self._kind(c, inner, stmt)
            parts = [e.key, e.value] if isinstance(e, ast.DictComp) else [e.elt]
            ks = [self._kind(p, inner, stmt) for p in parts]
            return "tensors" if TENSOR in ks else UNKNOWN
        if isinstance(e, ast.NamedExpr):
            k = self._kind(e.value, env, stmt)
            self._bind(e.target, k, env)
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

    def _ref(self, node: ast.AST, q: str) -> str:
        """Kind of a reference to an imported name used as a value (not called)."""
        if q.startswith("torch."):
            cat = torch_category(q)
            if cat == "compute":
                self._compute(node, q.rsplit(".", 1)[-1], f"reference to {q}")
            if cat == "dtype":
                return SCALAR
        return f"ref:{q}"

    def _attr(self, e: ast.Attribute, env: dict[str, str], stmt) -> str:
        if isinstance(e.value, ast.Name) and e.value.id == "self" and "self" not in env:
            return self.self_kinds.get(self.cur_cls or "", {}).get(e.attr, UNKNOWN)
        q = self.ix.qualname(e)
        if q is not None:
            return self._ref(e, q)
        kv = self._kind(e.value, env, stmt)
        if kv == TENSOR:
            if e.attr in T.TENSOR_SCALAR_ATTRS:
                return SCALAR
            if e.attr in T.TENSOR_VIEW_ATTRS:
                return TENSOR
            return UNKNOWN
        if kv.startswith("torchmod") and e.attr in T.TORCH_MODULE_TENSOR_ATTRS:
            return TENSOR
        if kv.startswith("ref:"):
            return self._ref(e, f"{kv[4:]}.{e.attr}")
        return SCALAR if kv == SCALAR else UNKNOWN

    def _call(self, e: ast.Call, env: dict[str, str], stmt) -> str:
        from leap.sandbox.static_dataflow_calls import call_kind

        return call_kind(self, e, env, stmt)


def _annot_kind(a: ast.AST | None) -> str | None:
    if isinstance(a, ast.Name) and a.id in ("int", "float", "bool", "str"):
        return SCALAR
    if isinstance(a, ast.Attribute) and a.attr == "Tensor":
        return TENSOR
    return None


def _is_range(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
