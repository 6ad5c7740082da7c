"""Data-path analysis for the static gate.

The *data path* is every function that can run when ModelNew is called: ``forward``/``__call__`` of the
candidate's module classes and everything they reference (helper functions, methods, the ``__init__`` of
classes built there, functions stored as values), but not the reference ``Model`` or the ``@triton.jit``
bodies (checked on their own, `leap.sandbox.gate.static_jit`). Over it a kind analysis
(`leap.sandbox.gate.static_kinds`) tells tensors from Python scalars, so ``n = x.numel(); grid = (n +
255) // 256`` passes while ``y = x * 2`` or ``x.sum()`` is PyTorch compute. It is *default deny*: a value
whose kind it cannot establish counts as possibly a tensor.

Flow: branches are joined where they meet, loops iterate to a fixpoint, a parameter's kind is the join
of the arguments of every call seen (its default where a call omits it; possibly a tensor when calls may
be hidden, as for dunder methods); attributes stored on ``self``, globals, kernel arguments and closures'
names are joined over the whole module. The whole module is analysed in passes until nothing changes,
then once more to report: code at module level and what it calls is *import-time* code (PyTorch compute
there is refused as ``import_time_compute``), ``__init__`` and other methods off the path are *init* code
(compute allowed, kinds recorded), the rest is the data path (``torch_compute``).
"""

from __future__ import annotations

import ast

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate import static_scopes as S
from leap.sandbox.gate.static_callargs import Params, params_of
from leap.sandbox.gate.static_dataflow_exprs import ExprKinds
from leap.sandbox.gate.static_dataflow_stmts import StmtKinds
from leap.sandbox.gate.static_gate_tables import torch_category
from leap.sandbox.gate.static_index import ModuleIndex
from leap.sandbox.gate.static_jit import jit_problems, kernel_bodies, kernel_sigs
from leap.sandbox.gate.static_kinds import SCALAR, TENSOR, UNKNOWN, UNSET, Kind, Tag, merge
from leap.sandbox.gate.static_launch import PRUNE_CONFIGS, meta_value, prune_hooks
from leap.sandbox.gate.static_plan import AUTOGRAD_CTX_METHODS, Book, Plan, grid_callables

__all__ = ["DataPath", "ModuleIndex"]
_MAX_PASSES = 12
_REPLACE_PASSES = 6   # after these, passes only join (so they settle)


class _Func:
    def __init__(self, node: ast.FunctionDef, cls: str | None, offset: int):
        self.node, self.cls, self.offset = node, cls, offset
        self.params: Params = params_of(node, offset)
        self.defaults: dict[str, Kind] = {}
        self.base: dict[str, Kind] = {}     # kinds every call gets on top (entry inputs, hidden calls)
        self.launches: set[str] = set()


class DataPath(ExprKinds, StmtKinds):
    """Infers value kinds over the module, collects violations and the kernels launched from forward."""

    def __init__(self, index: ModuleIndex, allowed_ops=(), backend: str | None = None):
        self.ix = index
        self.allowed = [o.lower() for o in allowed_ops]
        self.backend = backend
        self.violations: list[tuple[int, int, str, str]] = []
        self.deferred: list[tuple[int, int, str, str]] = []
        self.launched: set[str] = set()
        self.sink: set[str] = self.launched
        self.flagging, self.quiet, self.mode = False, 0, "path"
        self.cur_cls: str | None = None
        self.fn_key: tuple[str | None, str] | None = None
        self.scopes: list[S.Scope] = [index.tree]
        self.comp_env: dict[str, Kind] | None = None
        self.loop_snaps: list[list[dict[str, Kind]]] = []
        self.yielded: list[list[Kind]] = []     # per function being analysed: what its yields give
        self.free_writes: list[set[str]] = []   # per callable being analysed: enclosing names it changed
        self.meta_kernels: str | None = None
        self.callables: dict[str, set[str]] = {}
        self.callable_rets: dict[str, Kind] = {}
        self.seen, self.rets, self.mutates, self.attrs = Book(), Book(), Book(), Book()
        self.module, self.kargs, self.binds = Book(), Book(), Book()
        self.sigs = kernel_sigs(index)
        self.plan = Plan(index, {id(n) for n in kernel_bodies(index, self.sigs)})
        self.funcs: dict[tuple[str | None, str], _Func] = {}
        for key, node in self.plan.functions.items():
            self.funcs[key] = _Func(node, key[0], self.plan.offset(key))
        self.grid_ids = grid_callables(index, self.plan)
        self.prune_ids, self.prune_fns = prune_hooks(index)
        self.perf_ids, perf_fns = prune_hooks(index, "perf_model")
        self.prune_fns |= perf_fns  # both called by Triton only, with known kinds (not escaped)
        self.perf_fns = perf_fns
        self._set_bases()

    # --- parameters no call site shows ------------------------------------------------------------
    def _set_bases(self) -> None:
        for key, f in self.funcs.items():
            cls, name = key
            p = f.params
            if cls is None and name in self.prune_fns and len(p.positional) >= 2:  # Triton calls it at launch
                f.base[p.positional[0]], f.base[p.positional[1]] = PRUNE_CONFIGS, Kind(Tag.META, "")
            if cls in self.plan.autograd and name in AUTOGRAD_CTX_METHODS and p.positional and f.offset == 0 and (
                    name != "forward" or not self.plan.resolve(cls, "setup_context")):
                f.base[p.positional[0]] = Kind(Tag.CTX, cls)  # forward(ctx, ...), backward(ctx, ...)
            if cls in self.plan.autograd and name in AUTOGRAD_CTX_METHODS:
                continue  # forward gets what apply(...) is called with; the rest never runs on the data path
            if cls is not None and name in ("forward", "__call__", "backward") and cls not in self.plan.model_like:
                for a in p.positional:
                    f.base[a] = TENSOR
                for a in (p.vararg, p.kwarg):
                    if a:
                        f.base[a] = K.TENSORS
            elif cls is not None and name == "__init__" and cls in self.plan.mro("ModelNew"):
                for a in [*p.positional, *p.kwonly, p.vararg, p.kwarg]:
                    if a:
                        f.base[a] = SCALAR  # the task's init inputs
            elif cls is not None and _implicit(name):
                for a in [*p.positional, *p.kwonly, p.vararg, p.kwarg]:
                    if a:
                        f.base[a] = UNKNOWN  # Python calls it implicitly (h[x], with h:, iter(h))

    # --- analysis --------------------------------------------------------------------------------
    def run(self) -> None:
        books = (self.seen, self.rets, self.mutates, self.attrs, self.module, self.kargs, self.binds)
        for p in range(_MAX_PASSES):
            self._pass()
            changed = [b.roll(accumulate=p >= _REPLACE_PASSES) for b in books]
            if not any(changed):
                break
        self.flagging = True
        self._pass()
        self._stored_over_methods()
        self.launched = self._launches()
        for ln, col, msg in jit_problems(self.ix, self.sigs):
            self.violations.append((ln, col, msg, "jit_body"))
        self._unreached()

    def _stored_over_methods(self) -> None:
        """An attribute both stored (by any route: ``self.x =``, an alias, ``setattr``, ``type(self).x =``, a
        class-body value) and defined as a method of the class family: which one an instance sees depends on
        the order of lookups the analysis does not model (rule ``rebinding``)."""
        stored = {key for d in (self.attrs.cur, self.attrs.nxt) for key, k in d.items() if k != UNSET}
        for (cls, name), node in self.plan.functions.items():
            if cls is not None and (self.plan.family(cls), name) in stored:
                self.violations.append((node.lineno, node.col_offset, f"{cls}.{name} is a method and also a "
                                        "value stored under the same name: give the value its own name",
                                        "rebinding"))

    def _pass(self) -> None:
        self.launched = set()
        self.sink = self.launched
        self.callables, self.callable_rets = {}, {}
        self._module_pass()
        for mode, keys in (("import", self.plan.import_keys), ("init", self.plan.init_keys),
                           ("path", self.plan.path_keys)):
            for key in keys:
                self._analyze(key, mode)

    def _analyze(self, key: tuple[str | None, str], mode: str) -> None:
        f = self.funcs[key]
        p = f.params
        env: dict[str, Kind] = {}
        for a in [*p.positional, *p.kwonly, p.vararg, p.kwarg]:
            if a:
                k = merge(f.base.get(a, UNSET), self.seen.get((key, a)))
                env[a] = UNKNOWN if k == UNSET else k
        if key[0] is None and key[1] in self.perf_fns:  # perf_model(**bound arguments, **config values)
            env.update(self._perf_params(f.node.args, ""))
        state = (self.mode, self.cur_cls, self.fn_key, self.sink)
        self.mode, self.cur_cls, self.fn_key = mode, key[0], key
        f.launches = set()
        self.sink = f.launches
        self.scopes.append(f.node)
        self.yielded.append([])
        try:
            ret = self._body(f.node.body, env)
        finally:
            self.scopes.pop()
            ys = self.yielded.pop()
            self.mode, self.cur_cls, self.fn_key, self.sink = state
        self.rets.add(key, K.tainted(UNKNOWN, ys) if S.yields(f.node) else ret)

    def _launches(self) -> set[str]:
        """The backends whose kernels ModelNew's forward (or its own ``__call__``) launches, itself or through
        the functions and lambdas it calls (each analysis recorded what it launches and whom it calls; code
        that cannot run recorded nothing)."""
        entry = (self.plan.resolve("ModelNew", "__call__") or self.plan.resolve("ModelNew", "forward"))[:1]
        todo = [K.CALLS_FUNCTION + f"{c}.{n}" for c, n in entry]
        if not entry:  # forward = helper (a function or lambda stored on the class)
            k = self.self_kind("ModelNew", "forward")
            todo = [(K.CALLS_FUNCTION if k.tag is Tag.USERFN else K.CALLS_CALLABLE) + n for n in k.names
                    if k.tag in (Tag.USERFN, Tag.CALLABLE)]
        seen, out = set(), set()
        while todo:
            t = todo.pop()
            if t in seen:
                continue
            seen.add(t)
            if t.startswith(K.CALLS_FUNCTION):
                name = t[len(K.CALLS_FUNCTION):]
                f = self.funcs.get(tuple(name.split(".", 1)) if "." in name else (None, name))
                todo.extend(f.launches if f is not None else ())
            elif t.startswith(K.CALLS_CALLABLE):
                todo.extend(self.callables.get(t[len(K.CALLS_CALLABLE):], ()))
            else:
                out.add(t)
        return out

    def _module_pass(self) -> None:
        """Module-level code, class bodies, decorators and defaults: what runs at import time."""
        state = (self.mode, self.cur_cls, self.fn_key, self.sink)
        self.mode, self.fn_key, self.sink = "import", None, set()
        env: dict[str, Kind] = {}
        try:
            for stmt in self.ix.tree.body:
                self._module_stmt(stmt, env, None)
        finally:
            self.mode, self.cur_cls, self.fn_key, self.sink = state

    def _module_stmt(self, stmt: ast.stmt, env: dict[str, Kind], cls: str | None) -> None:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            kernel = self.plan.kernel_name(stmt, cls)
            self.meta_kernels = kernel
            try:
                for d in stmt.decorator_list:
                    self._kind(d, env, stmt)
            finally:
                self.meta_kernels = None
            key = (cls, stmt.name)
            defaults = self._defaults(stmt, env)
            if kernel is not None:
                self._kernel_constants(stmt, kernel, defaults)
            if key in self.funcs and self.funcs[key].node is stmt:
                self.funcs[key].defaults = defaults
        elif isinstance(stmt, ast.ClassDef):
            if stmt.name in self.plan.model_like:
                return
            for x in [*stmt.decorator_list, *stmt.bases, *(k.value for k in stmt.keywords)]:
                self._kind(x, env, stmt)
            self.cur_cls = stmt.name
            inner: dict[str, Kind] = {}
            for s in stmt.body:
                if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    self._module_stmt(s, inner, stmt.name)
                elif isinstance(s, ast.Assign | ast.AnnAssign) and s.value is not None:
                    for t in (s.targets if isinstance(s, ast.Assign) else [s.target]):
                        for name, v in _class_attr_values(t, s.value):
                            k = self._value_kind(v, inner)
                            inner[name] = k
                            self.attrs.add((self.plan.family(stmt.name), name), k)
                elif not isinstance(s, ast.Expr | ast.Pass):
                    self._stmt(s, inner)
            self.cur_cls = cls
            if cls is not None and inner and not (stmt.decorator_list or stmt.bases or stmt.keywords) and all(
                    isinstance(s, ast.Assign | ast.AnnAssign | ast.Expr | ast.Pass) for s in stmt.body):
                # a class of constants nested in a class (``class Cfg: BLOCK = 256``): a record of them there
                self.attrs.add((self.plan.family(cls), stmt.name), K.record(sorted(inner.items())))
        elif id(stmt) in self.ix.unrun_main_guards:
            self._body(stmt.orelse, env)
        elif not isinstance(stmt, ast.Import | ast.ImportFrom):
            self._stmt(stmt, env)

    def _kernel_constants(self, stmt: ast.FunctionDef, kernel: str, defaults: dict[str, Kind]) -> None:
        """What a kernel's body gets without a launch argument: its defaults and the values its heuristics
        compute (they reach ``tl.constexpr`` parameters) must be constants or kernels."""
        found = [(stmt, f"default of {n}", k) for n, k in defaults.items()]
        for d in stmt.decorator_list:
            if isinstance(d, ast.Call) and self.ix.qualname(d.func) == "triton.heuristics" and d.args and isinstance(
                    d.args[0], ast.Dict):
                for key, v in zip(d.args[0].keys, d.args[0].values, strict=True):
                    k = self.callable_rets.get(str(id(v)), UNKNOWN) if isinstance(v, ast.Lambda) else UNKNOWN
                    if isinstance(v, ast.Name) and (None, v.id) in self.funcs:
                        k = self.rets.get((None, v.id))
                    found.append((v, f"heuristic {ast.unparse(key) if key else '?'}", k))
        for node, what, k in found:
            if k.maybe_tensor or k.tag not in (Tag.SCALAR, Tag.NONE, Tag.JIT):
                self.flag(node, f"{what} of kernel {kernel} is not a constant or a kernel (kind {k.tag.value})",
                          "kernel_args")

    def _defaults(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, env) -> dict[str, Kind]:
        a = node.args
        positional = [*a.posonlyargs, *a.args]
        out = {}
        for arg, d in zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=True):
            out[arg.arg] = self._value_kind(d, env)
        for arg, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
            if d is not None:
                out[arg.arg] = self._value_kind(d, env)
        return out

    def _unreached(self) -> None:
        """Every other function or lambda of the candidate (in a nested class, a decorator, ...) is checked
        as a callable that may get tensors: code the passes did not reach must not hide compute."""
        done = {id(f.node) for f in self.funcs.values()} | {int(i) for i in self.callables}
        skip = self.plan.skipped_nodes()
        self.mode = "path"
        for node in ast.walk(self.ix.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and id(node) not in done | skip:
                if not any(id(n) in done for n in ast.walk(node) if n is not node):
                    self.callable_kind(node, {})
                done.add(id(node))

    # --- callables -------------------------------------------------------------------------------
    def callable_kind(self, node: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef, env: dict[str, Kind],
                      params: Kind | None = None) -> Kind:
        """Analyse a lambda or nested function where it is defined: its parameters may be tensors (a launch
        grid's get Triton's meta dict), it sees the enclosing names as joined over the whole enclosing
        function; names it changes there (nonlocal, or a container it fills) flow back."""
        cid = str(id(node))
        if params is None:
            params = (Kind(Tag.META, self.meta_kernels or "") if id(node) in self.grid_ids
                      or self.meta_kernels is not None else UNKNOWN)
        defaults = self._defaults(node, env)
        a = node.args
        scope = dict(env)
        enclosing = self.scopes[-1]
        joined = (self.binds.where(id(enclosing)) if not isinstance(enclosing, ast.Module)
                  else {n: self.module.get(n) for n in scope})
        for n, k in joined.items():
            scope[n] = merge(scope.get(n, UNSET), k)
        for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
            scope[x.arg] = merge(params, defaults.get(x.arg, UNSET))
        if id(node) in self.prune_ids and [*a.posonlyargs, *a.args]:  # early_config_prune(configs, nargs)
            scope[[*a.posonlyargs, *a.args][0].arg] = PRUNE_CONFIGS
        if id(node) in self.perf_ids:
            scope.update(self._perf_params(a, self.meta_kernels or ""))
        for x in (a.vararg, a.kwarg):
            if x is not None:
                scope[x.arg] = UNKNOWN
        self.free_writes.append(set(S.nonlocals_of(node)))
        state = (self.mode, self.fn_key, self.sink, self.comp_env, self.loop_snaps, self.meta_kernels)
        self.mode, self.fn_key, self.comp_env, self.loop_snaps, self.meta_kernels = "path", None, None, [], None
        self.sink = self.callables.setdefault(cid, set())
        self.scopes.append(node)
        self.yielded.append([])
        try:
            if isinstance(node, ast.Lambda):
                ret = self._kind(node.body, scope, node)
            else:  # a generator's body is analysed too; calling it gives what it yields
                ret = self._body(node.body, scope)
                ret = K.tainted(UNKNOWN, self.yielded[-1]) if S.yields(node) else ret
            self.callable_rets[cid] = merge(self.callable_rets.get(cid, UNSET), ret)
        finally:
            self.scopes.pop()
            self.yielded.pop()
            self.mode, self.fn_key, self.sink, self.comp_env, self.loop_snaps, self.meta_kernels = state
            written = self.free_writes.pop()
        for n in sorted(written):  # nonlocal names and enclosing containers it stored into
            if n in env and n in scope:
                if scope[n].maybe_tensor and not env[n].maybe_tensor:
                    self._param_store(n, scope[n], node)
                self.rebind(n, merge(env[n], scope[n]), env)
        return Kind(Tag.CALLABLE, cid)

    def _perf_params(self, a: ast.arguments, kernels: str) -> dict[str, Kind]:
        """A perf_model's parameters: each the launch's argument (or config value) of its name; ``**kw`` the
        bound-arguments dict."""
        meta = Kind(Tag.META, kernels)
        out = {x.arg: meta_value(self, meta, x.arg) for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
        if a.kwarg is not None:
            out[a.kwarg.arg] = meta
        return out

    # --- attributes and module names -------------------------------------------------------------
    def self_kind(self, cls: str | None, attr: str) -> Kind:
        """Kind of ``<instance of cls>.<attr>`` (class attributes and every store, over the class family)."""
        jit = self.plan.jit_method(cls, attr)
        if jit is not None:
            return Kind(Tag.JIT, jit)
        k = self.attrs.get((self.plan.family(cls or ""), attr))
        return UNKNOWN if k == UNSET else k

    def ctx_attr(self, ctx: Kind, attr: str) -> Kind:
        """``ctx.attr`` of an autograd Function's ctx: what forward saved (tensors), ``needs_input_grad``, or a
        value the candidate stored on it."""
        if attr in ("saved_tensors", "saved_variables"):
            return K.TENSORS
        if attr in ("needs_input_grad", "materialize_grads"):
            return SCALAR
        return self.self_kind(f"{ctx.arg}.ctx", attr)

    def store_self(self, cls: str | None, attr: str, k: Kind) -> None:
        if cls is not None:
            self.attrs.add((self.plan.family(cls), attr), k)

    def module_kind(self, name: str) -> Kind:
        k = self.module.get(name)
        return UNKNOWN if k == UNSET else k

    def store_module(self, name: str, k: Kind) -> None:
        self.module.add(name, k)

    # --- reporting -------------------------------------------------------------------------------
    def flag(self, node: ast.AST, msg: str, rule: str | None = None) -> None:
        """Record a violation (final pass only). ``rule`` None is PyTorch compute, which counts on the data
        path (torch_compute) and at import time (import_time_compute), not in init code."""
        if not self.flagging or self.quiet:
            return
        if rule is None:
            if self.mode == "init":
                return
            rule = "torch_compute" if self.mode == "path" else "import_time_compute"
        self.violations.append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0), msg, rule))

    def _op_ok(self, name: str) -> bool:
        name = name.lower()
        return any(name == op or name in T.OP_SYNONYMS.get(op, ()) for op in self.allowed)

    def compute(self, node: ast.AST, name: str, what: str, deferred: bool = False) -> None:
        """PyTorch (or host) compute, unless the task allows the op; ``deferred``: reported only when the
        backend's kernel is found (`deferred` violations; else the verdict is no_kernel)."""
        if not self._op_ok(name):
            where = "in the data path" if self.mode != "import" else "at import time"
            n = len(self.violations)
            self.flag(node, f"PyTorch compute {where}: {what}")
            if deferred and self.mode == "path":
                self.deferred += self.violations[n:]
                del self.violations[n:]

    def unknown(self, node: ast.AST, what: str) -> None:
        """Default deny: an operation on a value the analysis cannot prove is not a tensor."""
        self.flag(node, f"{what} on a value the gate cannot identify (treated as a possible tensor)")

    def _value_kind(self, expr: ast.AST, env: dict[str, Kind]) -> Kind:
        """Kind of a stored value; a value that wraps a PyTorch compute function (``partial(F.gelu)``)
        counts as a reference to it, so calling it in the data path is compute (library compute handed on unrun
        from init or import code: `static_deferred`)."""
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


def _implicit(name: str) -> bool:
    return name != "__init__" and name.startswith("__") and name.endswith("__")


def _class_attr_values(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """(name, value expression) of a class-body assignment: ``A = v``, and ``A, B = v1, v2`` element by element
    (another unpacking gives each name the whole value, whose kind then stands for each element)."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Tuple | ast.List):
        if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts) and not any(
                isinstance(e, ast.Starred) for e in [*target.elts, *value.elts]):
            return [p for t, v in zip(target.elts, value.elts, strict=True) for p in _class_attr_values(t, v)]
        return [(n.id, value) for n in ast.walk(target) if isinstance(n, ast.Name)]
    return []


def init_code(plan: Plan) -> tuple[tuple[int, str], ...]:
    """(first line, qualified name) of the candidate's functions the analysis treats as init code
    (`Plan.init_keys`: PyTorch and numpy may compute there); the first line is a decorator's when there is one,
    as in ``co_firstlineno``. The child watches for them starting during forward (`worker/detectors.InitWatch`):
    reached there by a route the analysis did not see, they would compute the answer unchecked."""
    out = set()
    for cls, name in plan.init_keys:
        n = plan.functions[(cls, name)]
        out.add((min([n.lineno, *(d.lineno for d in n.decorator_list)]), f"{cls}.{name}" if cls else name))
    return tuple(sorted(out))
