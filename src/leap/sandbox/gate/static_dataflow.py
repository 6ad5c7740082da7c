"""Data-path analysis for the static gate.

The *data path* is every function that can run when ModelNew is called: ``forward``/``__call__`` of the
candidate's module classes and everything they reference (helper functions, methods, the ``__init__`` of
classes built there, functions stored as values), but not the reference ``Model``, the input generators
or the ``@triton.jit`` bodies. Over it a flow-insensitive kind analysis (`leap.sandbox.gate.static_kinds`)
tells tensors from Python scalars, so ``n = x.numel(); grid = (n + 255) // 256`` passes while
``y = x * 2`` or ``x.sum()`` is PyTorch compute. The analysis is *default deny*: a value whose kind it
cannot establish counts as possibly a tensor. Containers keep the kind of their items; lambdas and nested
functions are analysed wherever they are defined (also in ``__init__``), with their parameters possibly
tensors; attributes stored on ``self`` keep the kind stored (``__init__``'s arguments are the task's
init inputs). It also records which backends' kernels are launched on the path.
"""

from __future__ import annotations

import ast

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate.static_dataflow_calls import method_store
from leap.sandbox.gate.static_dataflow_exprs import ExprKinds, annot_kind, binop_kind, is_range, merge_ret
from leap.sandbox.gate.static_gate_tables import torch_category
from leap.sandbox.gate.static_index import ModuleIndex
from leap.sandbox.gate.static_kinds import SCALAR, TENSOR, UNKNOWN, UNSET, Kind, Tag, merge

__all__ = ["DataPath", "ModuleIndex"]
_ENTRY_METHODS = ("forward", "__call__", "backward")
_EXCLUDED_FUNCS = ("get_inputs", "get_init_inputs", "get_small_inputs")
_PASSES = 4  # silent passes let kinds settle; the last one flags


class _Func:
    def __init__(self, node: ast.FunctionDef, cls: str | None):
        self.node, self.cls = node, cls
        args = node.args
        self.names = [a.arg for a in args.posonlyargs + args.args]
        is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
        self.offset = 1 if cls is not None and not is_static else 0
        self.base: dict[str, Kind] = {}   # kinds known before any call site (annotations, defaults)
        self.seen: dict[str, Kind] = {}   # kinds passed at call sites during the previous pass
        self.seen_next: dict[str, Kind] = {}
        self.ret = UNSET
        self.launches: set[str] = set()


class DataPath(ExprKinds):
    """Finds the data-path functions, infers value kinds there, collects violations and launches."""

    def __init__(self, index: ModuleIndex, allowed_ops=()):
        self.ix = index
        self.allowed = [o.lower() for o in allowed_ops]
        self.violations: list[tuple[int, int, str]] = []
        self.launched: set[str] = set()
        self.sink: set[str] = self.launched   # where launches seen now are recorded
        self.flagging = False
        self.silent = False                   # analysing code off the data path (records kinds only)
        self.offpath_final = False            # last pass over code off the path: check callables made there
        self.cur_cls: str | None = None
        self.module_kinds: dict[str, Kind] = {}
        self.funcs: dict[tuple[str | None, str], _Func] = {}
        self.self_base: dict[str, dict[str, Kind]] = {}   # from class bodies and off-path methods
        self.self_seen: dict[str, dict[str, Kind]] = {}   # stored on the path in the previous pass
        self.self_next: dict[str, dict[str, Kind]] = {}
        self.callables: dict[str, set[str]] = {}          # lambda / nested def id -> kernels it launches
        self.model_like = {n for n in index.classes if n == "Model"}
        for cname, cls in index.classes.items():
            for stmt in cls.body:
                if isinstance(stmt, ast.FunctionDef) and (cname, stmt.name) not in index.jit_methods:
                    self.funcs[(cname, stmt.name)] = _Func(stmt, cname)
        for fname, fn in index.functions.items():
            if isinstance(fn, ast.FunctionDef):
                self.funcs[(None, fname)] = _Func(fn, None)
        self.autograd = {c for c, node in index.classes.items()
                         if any(b.startswith("torch.autograd") for b in index.class_bases(node))}
        self.grid_lambdas, self.grid_names = _grid_lambdas(index.tree)

    # --- which functions are on the data path ----------------------------------------------------
    def _excluded(self, key: tuple[str | None, str]) -> bool:
        cls, name = key
        if cls in self.model_like:
            return True
        return cls is None and (name in _EXCLUDED_FUNCS or name in self.ix.jit)

    def included(self) -> list[tuple[str | None, str]]:
        method_names = {k[1] for k in self.funcs if k[0] is not None}
        # entry points, and dunder methods Python calls implicitly (h[x], iter(h), with h: ...)
        roots = {k for k in self.funcs if k[0] is not None and (k[1] in _ENTRY_METHODS or _implicit(k[1]))}
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
                elif isinstance(node, ast.Name) and node.id in self.ix.classes:  # built (or its __init__ run) here
                    refs += [k for k in self.funcs if k[0] == node.id and k[1] in ("__init__", *_ENTRY_METHODS)]
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
                out += [k for k in self.funcs if k[0] is not None and k[1] == child.attr and k[1] != "__init__"]
        return out

    # --- analysis --------------------------------------------------------------------------------
    def run(self) -> None:
        keys = self.included()
        self.silent = True
        for p in range(2):  # module-level values: extensions, raw kernels, constants, dispatch tables
            self.offpath_final = p == 1
            for node in self.ix.tree.body:
                if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                    k, env = self._value_kind(node.value, {}), {}
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                        self._bind(t, k, env, node)
                    for name, kn in env.items():
                        if name not in self.ix.aliases:
                            self.module_kinds[name] = merge(self.module_kinds.get(name, UNSET), kn)
        for cname, cls in self.ix.classes.items():
            self.self_base[cname] = {}
            if cname in self.model_like:
                continue
            self.cur_cls = cname
            for stmt in cls.body:  # class attributes (act = torch.relu) are reachable as self.act
                if isinstance(stmt, ast.Assign):
                    k = self._value_kind(stmt.value, {})
                    for t in stmt.targets:
                        if isinstance(t, ast.Name):
                            self.self_base[cname][t.id] = k
        off_path = [k for k in self.funcs if k not in keys and not self._excluded(k) and k[0] is not None]
        for p in range(2):  # __init__ and other methods off the path: what they store on self
            self.offpath_final = p == 1
            for key in off_path:
                self._analyze(key, init_args=key[1] == "__init__")
        self.silent = False
        for key in keys:
            f = self.funcs[key]
            entry = key[0] is not None and key[1] in _ENTRY_METHODS
            first = 1 if key[0] in self.autograd else 0
            for i, a in enumerate(f.node.args.posonlyargs + f.node.args.args):
                if i < f.offset + first and (f.offset or key[0] in self.autograd):
                    continue
                f.base[a.arg] = annot_kind(a.annotation) or (TENSOR if entry else UNSET)
            positional = f.node.args.posonlyargs + f.node.args.args
            for a, d in zip(positional[len(positional) - len(f.node.args.defaults):], f.node.args.defaults,
                            strict=True):
                f.base[a.arg] = merge(f.base.get(a.arg, UNSET), self._value_kind(d, {}))
            for a, d in zip(f.node.args.kwonlyargs, f.node.args.kw_defaults, strict=True):
                f.base[a.arg] = annot_kind(a.annotation) or (self._value_kind(d, {}) if d is not None else UNKNOWN)
            for va in (f.node.args.vararg, f.node.args.kwarg):
                if va is not None:
                    f.base[va.arg] = K.TENSORS if entry else UNKNOWN
        for i in range(_PASSES):
            self.flagging = i == _PASSES - 1
            for key in keys:
                f = self.funcs[key]
                f.seen, f.seen_next = f.seen_next, {}
            self.self_seen, self.self_next = self.self_next, {}
            for key in keys:
                self._analyze(key)
        self._unreached(keys)

    def _unreached(self, keys) -> None:
        """Every other function or lambda of the candidate (in a nested class, a decorator, ...) is
        checked as a callable that may get tensors: code the passes above did not reach must not hide
        compute. Skipped: the reference Model, the input generators and the Triton kernels (with their
        decorators)."""
        done = {id(self.funcs[k].node) for k in keys} | {id(f.node) for k, f in self.funcs.items()
                                                          if k[0] is not None and not self._excluded(k)}
        done |= {int(i) for i in self.callables}
        skip: set[int] = set()
        for node in self.ix.tree.body:
            if isinstance(node, ast.ClassDef) and node.name in self.model_like:
                skip.update(id(n) for n in ast.walk(node))
            if isinstance(node, ast.FunctionDef) and (node.name in _EXCLUDED_FUNCS or node.name in self.ix.jit):
                skip.update(id(n) for n in ast.walk(node))
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ast.FunctionDef) and (node.name, stmt.name) in self.ix.jit_methods:
                        skip.update(id(n) for n in ast.walk(stmt))
        self.silent, self.flagging, self.offpath_final = True, True, True
        for node in ast.walk(self.ix.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and id(node) not in done | skip:
                if not any(id(n) in done for n in ast.walk(node) if n is not node):
                    self.callable_kind(node, {})
                done.add(id(node))
        self.silent = False

    def _analyze(self, key: tuple[str | None, str], init_args: bool = False) -> None:
        f = self.funcs[key]
        self.cur_cls = key[0]
        if init_args:  # __init__ off the path: its arguments are the task's init inputs (never forward's)
            env = {n: annot_kind(a.annotation) or SCALAR
                   for n, a in zip(f.names[f.offset:], (f.node.args.posonlyargs + f.node.args.args)[f.offset:],
                                   strict=True)}
        elif self.silent:
            env = {n: UNKNOWN for n in f.names[f.offset:]}
        else:
            env = {n: merge(f.base.get(n, UNSET), f.seen.get(n, UNSET)) for n in set(f.base) | set(f.seen)}
            env = {n: (UNKNOWN if k == UNSET else k) for n, k in env.items()}
        for va in (f.node.args.vararg, f.node.args.kwarg, *f.node.args.kwonlyargs):
            if va is not None and va.arg not in env:
                env[va.arg] = UNKNOWN
        sink, self.sink = self.sink, (f.launches if self.silent else self.launched)
        try:
            ret = self._body(f.node.body, env)
        finally:
            self.sink = sink
        if not self.silent:
            f.ret = ret

    def _value_kind(self, expr: ast.AST, env: dict[str, Kind]) -> Kind:
        """Kind of a stored value; a value that wraps a PyTorch compute function (``partial(F.gelu)``)
        counts as a reference to it, so calling it in the data path is compute."""
        k = self._kind(expr, env, None)
        if k.tag not in (Tag.UNKNOWN, Tag.NONE, Tag.UNSET):
            return k
        funcs = {id(n.func) for n in ast.walk(expr) if isinstance(n, ast.Call)}
        for n in ast.walk(expr):
            if isinstance(n, ast.Name | ast.Attribute) and id(n) not in funcs:
                q = self.ix.qualname(n)
                if q and q.startswith("torch.") and torch_category(q) in ("compute", "module"):
                    return K.ref(q)
        return k

    def self_kind(self, cls: str | None, attr: str) -> Kind:
        """Kind of ``self.<attr>`` in class ``cls``; a kernel defined in the class is a kernel."""
        if (cls, attr) in self.ix.jit_methods:
            return K.JIT
        k = merge(self.self_base.get(cls or "", {}).get(attr, UNSET), self.self_seen.get(cls or "", {}).get(attr, UNSET))
        return UNKNOWN if k == UNSET else k

    def store_self(self, cls: str | None, attr: str, k: Kind) -> None:
        if cls is None:
            return
        book = self.self_base if self.silent else self.self_next
        d = book.setdefault(cls, {})
        d[attr] = merge(d.get(attr, UNSET), k)
        if not self.silent:
            self.self_seen.setdefault(cls, {}).setdefault(attr, k)

    def flag(self, node: ast.AST, msg: str) -> None:
        if self.flagging and not self.silent:
            self.violations.append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0), msg))

    def _op_ok(self, name: str) -> bool:
        name = name.lower()
        return any(name == op or name in T.OP_SYNONYMS.get(op, ()) for op in self.allowed)

    def compute(self, node: ast.AST, name: str, what: str) -> None:
        if not self._op_ok(name):
            self.flag(node, f"PyTorch compute in the data path: {what}")

    def unknown(self, node: ast.AST, what: str) -> None:
        """Default deny: an operation on a value the analysis cannot prove is not a tensor."""
        self.flag(node, f"{what} on a value the gate cannot identify (treated as a possible tensor)")

    # --- statements ------------------------------------------------------------------------------
    def _body(self, stmts: list[ast.stmt], env: dict[str, Kind]) -> Kind:
        ret = K.NONE
        for s in stmts:
            r = self._stmt(s, env)
            if r is not None:
                ret = merge(ret, r)
        return ret

    def _stmt(self, s: ast.stmt, env: dict[str, Kind]) -> Kind | None:
        ret = None
        if isinstance(s, ast.Assign):
            k = self._assigned(s.value, s.targets, env, s)
            for t in s.targets:
                self._bind(t, k, env, s)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self._bind(s.target, self._assigned(s.value, [s.target], env, s), env, s)
        elif isinstance(s, ast.AugAssign):
            kt, kv = self._kind(s.target, env, s), self._kind(s.value, env, s)
            name = T.BINOP_NAMES.get(type(s.op).__name__, "op")
            if TENSOR in (kt, kv):
                self.compute(s, name, f"in-place tensor operator ({name}_)")
            elif kt.maybe_tensor or kv.maybe_tensor:
                self.unknown(s, f"in-place operator ({name}_)")
            self._bind(s.target, binop_kind(kt, kv), env, s)
        elif isinstance(s, ast.Return):
            ret = self._kind(s.value, env, s) if s.value is not None else K.NONE
        elif isinstance(s, ast.Expr):
            self._kind(s.value, env, s)
        elif isinstance(s, ast.For | ast.AsyncFor):
            ki = self._kind(s.iter, env, s)
            self._bind(s.target, SCALAR if is_range(s.iter) else K.element(ki), env, s)
            ret = merge_ret(ret, self._body(s.body, env))
            ret = merge_ret(ret, self._body(s.orelse, env))
        elif isinstance(s, ast.While | ast.If):
            self._kind(s.test, env, s)
            ret = merge_ret(ret, self._body(s.body, env))
            ret = merge_ret(ret, self._body(s.orelse, env))
        elif isinstance(s, ast.With | ast.AsyncWith):
            for item in s.items:
                k = self._kind(item.context_expr, env, s)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, k, env, s)
            ret = merge_ret(ret, self._body(s.body, env))
        elif isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
            env[s.name] = self.callable_kind(s, env)
        elif isinstance(s, ast.ClassDef):  # a class made inside a function: its methods are callables
            for m in s.body:
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.callable_kind(m, env)
            env[s.name] = UNKNOWN
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Subscript) and self._kind(t.value, env, s).maybe_tensor:
                    self.compute(s, "delitem", "deleting tensor items")
        elif isinstance(s, ast.Assert | ast.Raise):
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self._kind(child, env, s)
        return ret

    def _assigned(self, value: ast.expr, targets: list[ast.expr], env, s) -> Kind:
        """Kind of an assigned value; a lambda bound to a name used only as a launch grid gets scalar
        parameters (Triton calls it with the meta-parameters)."""
        if isinstance(value, ast.Lambda) and all(isinstance(t, ast.Name) and t.id in self.grid_names
                                                 for t in targets):
            return self.callable_kind(value, env, SCALAR)
        return self._value_kind(value, env) if self.silent else self._kind(value, env, s)

    def callable_kind(self, node: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef, env: dict[str, Kind],
                      params: Kind = UNKNOWN) -> Kind:
        """Analyse a lambda or nested function where it is defined: its parameters may be tensors, it sees
        the enclosing names. Off the path its launches are kept for when the path calls it."""
        args = node.args
        inner = {a.arg: annot_kind(a.annotation) or params
                 for a in args.posonlyargs + args.args + args.kwonlyargs}
        for va in (args.vararg, args.kwarg):
            if va is not None:
                inner[va.arg] = params if params == SCALAR else UNKNOWN
        launches = self.callables.setdefault(str(id(node)), set())
        silent, flagging, sink = self.silent, self.flagging, self.sink
        if silent:  # a callable made off the path (e.g. in __init__) may be called from forward: check it
            self.silent, self.flagging, self.sink = False, self.offpath_final, launches
        try:
            scope = {**env, **inner}
            if isinstance(node, ast.Lambda):
                self._kind(node.body, scope, node)
            else:
                self._body(node.body, scope)
        finally:
            self.silent, self.flagging, self.sink = silent, flagging, sink
        return Kind(Tag.CALLABLE, str(id(node)))

    def _bind(self, target: ast.AST, kind: Kind, env: dict[str, Kind], stmt) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = kind
        elif isinstance(target, ast.Tuple | ast.List):
            sub = K.element(kind) if kind.tag is not Tag.SCALAR else SCALAR
            if kind.tag is Tag.INDEXED and len(target.elts) == 2:  # i, item = enumerate's pair
                self._bind(target.elts[0], SCALAR, env, stmt)
                self._bind(target.elts[1], kind.inner or UNSET, env, stmt)
                return
            for e in target.elts:
                self._bind(e.value if isinstance(e, ast.Starred) else e, sub, env, stmt)
        elif isinstance(target, ast.Subscript):
            kc = self._kind(target.value, env, target)
            self._kind(target.slice, env, target)
            if kc == TENSOR:
                self.compute(target, "copy", "writing into a tensor with indexing (copy_/fill)")
            elif kc.tag in (Tag.UNKNOWN, Tag.UNSET):
                self.unknown(target, "writing with indexing (copy_/fill)")
            else:
                method_store(self, target.value, K.container_of(kc, kind), env)
        elif isinstance(target, ast.Attribute):
            base = target.value
            if isinstance(base, ast.Name) and base.id == "self" and "self" not in env:
                self.store_self(self.cur_cls, target.attr, kind)
                return
            kb = self._kind(base, env, target)
            if kb.tag is Tag.USERMOD:
                self.store_self(kb.arg, target.attr, kind)
            elif kind.maybe_tensor or kind.tag is Tag.CALLABLE:
                self.unknown(target, f"storing a value as attribute .{target.attr} of another object")


def _implicit(name: str) -> bool:
    return name != "__init__" and name.startswith("__") and name.endswith("__")


def _grid_lambdas(tree: ast.Module) -> tuple[set[int], set[str]]:
    """Lambdas written as a launch grid (``k[lambda meta: ...](...)``) and names whose every use is as a
    launch grid (``grid = lambda meta: ...; k[grid](...)``)."""
    lambdas, grid_loads, loads = set(), set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    loads.setdefault(t.id, [])
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            s = node.func.slice
            if isinstance(s, ast.Lambda):
                lambdas.add(id(s))
            elif isinstance(s, ast.Name):
                grid_loads.add(id(s))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads.setdefault(node.id, []).append(id(node))
    names = {n for n, ids in loads.items() if all(i in grid_loads for i in ids)}  # unused ones too
    return lambdas, names
