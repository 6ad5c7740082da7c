"""Statements for the data-path analysis (`leap.sandbox.gate.static_dataflow`): bindings, and control flow
with the kinds of every path joined where paths meet (``if``/``else``, ``match``, loops iterated to a
fixpoint, ``break``/``continue``), ``with ... as`` targets, and stores into containers, which reach every
name that may share the container (`leap.sandbox.gate.static_scopes.alias_groups`)."""

from __future__ import annotations

import ast
from contextlib import contextmanager

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate import static_reach as R
from leap.sandbox.gate import static_scopes as S
from leap.sandbox.gate.static_callargs import of_kinds
from leap.sandbox.gate.static_dataflow_calls import user_call
from leap.sandbox.gate.static_kinds import SCALAR, TENSOR, UNKNOWN, UNSET, Kind, Tag, merge

_LOOP_ROUNDS = 6


def join_envs(envs: list[dict[str, Kind]]) -> dict[str, Kind]:
    out: dict[str, Kind] = {}
    for e in envs:
        for n, k in e.items():
            out[n] = merge(out.get(n, UNSET), k)
    return out


class StmtKinds:
    """Mixin of `DataPath`: statements (``self._kind`` gives expressions' kinds)."""

    def _body(self, stmts: list[ast.stmt], env: dict[str, Kind]) -> Kind:
        ret = K.NONE
        for i, s in enumerate(stmts):
            with self.dead(any(isinstance(x, ast.Return | ast.Raise | ast.Break | ast.Continue) for x in stmts[:i])):
                r = self._stmt(s, env)
            if r is not None:
                ret = merge(ret, r)
        return ret

    def _stmt(self, s: ast.stmt, env: dict[str, Kind]) -> Kind | None:
        if isinstance(s, ast.Assign):
            t0, v = s.targets[0], s.value
            if (len(s.targets) == 1 and isinstance(t0, ast.Tuple | ast.List) and isinstance(v, ast.Tuple | ast.List)
                    and len(t0.elts) == len(v.elts) and not any(isinstance(x, ast.Starred) for x in [*t0.elts, *v.elts])):
                ks = [self._assigned(x, env, s) for x in v.elts]  # a, b = b, a: each from its own
                for t, k in zip(t0.elts, ks, strict=True):
                    self._bind(t, k, env, s)
                return None
            k = self._assigned(s.value, env, s)
            for t in s.targets:
                self._bind(t, k, env, s)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self._bind(s.target, self._assigned(s.value, env, s), env, s)
        elif isinstance(s, ast.AugAssign):
            kt, kv = self._kind(s.target, env, s), self._kind(s.value, env, s)
            name = T.BINOP_NAMES.get(type(s.op).__name__, "op")
            if Tag.TENSOR in (kt.tag, kv.tag):
                self.compute(s, name, f"in-place tensor operator ({name}_)")
            elif kt.maybe_tensor or kv.maybe_tensor:
                self.unknown(s, f"in-place operator ({name}_)")
            self._bind(s.target, self.binop(kt, kv), env, s)
        elif isinstance(s, ast.Return):
            return self._kind(s.value, env, s) if s.value is not None else K.NONE
        elif isinstance(s, ast.Expr):
            self._kind(s.value, env, s)
        elif isinstance(s, ast.If):
            self.truth(s.test, self._kind(s.test, env, s))
            if R.never(s.test, self.scopes[-1]):  # a branch that cannot run launches nothing
                return self._branches([s.orelse], env, keep=True, dead=[s.body])
            return self._branches([s.body, s.orelse], env)
        elif isinstance(s, ast.For | ast.AsyncFor):
            ki = self._kind(s.iter, env, s)
            item = self.iterate(s.iter, ki)

            def one(e, s=s, item=item):
                self._bind(s.target, item, e, s)
                return self._body(s.body, e)
            with self.dead(R.empty(s.iter)):
                ret = self._loop(env, one)
            return _merge_ret(ret, self._branches([s.orelse], env, keep=True))
        elif isinstance(s, ast.While):
            def one(e, s=s):
                self.truth(s.test, self._kind(s.test, e, s))
                return self._body(s.body, e)
            self.truth(s.test, self._kind(s.test, env, s))
            with self.dead(R.never(s.test, self.scopes[-1])):
                ret = self._loop(env, one)
            return _merge_ret(ret, self._branches([s.orelse], env, keep=True))
        elif isinstance(s, ast.With | ast.AsyncWith):
            for item in s.items:
                k = self._kind(item.context_expr, env, s)
                if item.optional_vars is not None:  # what __enter__ returns: known only for library contexts
                    entered = [user_call(self, Kind(Tag.USERFN, f"{c}.{n}"), of_kinds([]), env)
                               for c, n in self.plan.resolve(k.arg, "__enter__")] if k.tag is Tag.USERMOD else []
                    bound = k if k.tag in (Tag.OPAQUE, Tag.NONE) else K.tainted(UNKNOWN, entered)
                    self._bind(item.optional_vars, bound, env, s)
            return self._body(s.body, env)
        elif isinstance(s, ast.Match):
            return self._match(s, env)
        elif isinstance(s, ast.Try | getattr(ast, "TryStar", ast.Try)):  # refused by the policy; still analysed
            bodies = [s.body + s.orelse, *[h.body for h in s.handlers]]
            ret = self._branches(bodies, env, keep=True)
            return _merge_ret(ret, self._body(s.finalbody, env))
        elif isinstance(s, ast.Break | ast.Continue):
            if self.loop_snaps:
                self.loop_snaps[-1].append(dict(env))
        elif isinstance(s, ast.FunctionDef) and id(s) in self.plan.kernel_ids:  # a kernel made in a function
            self._bind_name(s.name, Kind(Tag.JIT, s.name), env)
        elif isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
            for d in s.decorator_list:
                self._kind(d, env, s)
            k = self.callable_kind(s, env)
            plain = all(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in s.decorator_list)
            self._bind_name(s.name, k if plain else UNKNOWN, env)
        elif isinstance(s, ast.ClassDef):  # a class made inside a function: its body runs now, in this scope
            self._local_class(s, env)
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Subscript) and self._kind(t.value, env, s).maybe_tensor:
                    self.compute(s, "delitem", "deleting tensor items")
        elif isinstance(s, ast.Assert | ast.Raise):
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self._kind(child, env, s)
        return None

    def truth(self, node: ast.AST, k: Kind) -> None:
        """Testing the truth value of a tensor (``if t:``, ``not v``, ``a or b``) computes with its data
        (``if range(v):`` is ``v > 0``)."""
        if k.tag is Tag.TENSOR and not isinstance(node, ast.Compare):  # a comparison is flagged already
            self.compute(node, "is_nonzero", f"the truth value of a {'tensor' if not k.has_data else 'tensor-data'} "
                                             "value (a test on data)")

    def iterate(self, it: ast.expr, k: Kind) -> Kind:
        """The kind of one item of ``for item in it``; a loop over data (``range(v)``, ``str(v)``,
        ``t.tolist()``) runs as many times as the data says: its trip count is data, so it is compute."""
        if k.has_data:
            self.compute(it, "loop", "a loop over tensor data (its length and items are data)")
        return K.element(k)

    @contextmanager
    def dead(self, on: bool = True):
        """While ``on``: code that cannot run (a branch under a condition that is never true, statements
        after a return); it is analysed, but the kernels it launches do not count."""
        saved = self.sink
        if on:
            self.sink = set()
        try:
            yield
        finally:
            self.sink = saved

    def _assigned(self, value: ast.expr, env, s) -> Kind:
        return self._value_kind(value, env) if self.mode != "path" else self._kind(value, env, s)

    # --- control flow -----------------------------------------------------------------------------
    def _branches(self, bodies: list[list[ast.stmt]], env: dict[str, Kind], keep: bool = False,
                  dead: list[list[ast.stmt]] = ()) -> Kind | None:
        """Analyse alternative bodies from the same env and join where they meet (``keep``: the path that
        runs none of them is one more alternative). ``dead`` bodies cannot run: analysed all the same, but
        their launches do not count."""
        envs, ret = [dict(env)] if keep else [], None
        for b in [*bodies, *dead]:
            e = dict(env)
            with self.dead(any(b is d for d in dead)):
                r = self._body(b, e) if b else None
            ret = _merge_ret(ret, r) if b else ret
            envs.append(e)
        env.clear()
        env.update(join_envs(envs))
        return ret

    def _local_class(self, s: ast.ClassDef, env: dict[str, Kind]) -> None:
        """A class statement inside a function: its decorators, bases and body statements are this function's
        code (they run here and see its names); its methods are callables. A class of constants only
        (``class Cfg: BLOCK = 256``) is a record of them, anything else unknown."""
        for x in [*s.decorator_list, *s.bases, *(k.value for k in s.keywords)]:
            self._kind(x, env, s)
        body = dict(env)
        names: list[str] = []
        plain = not (s.bases or s.keywords or s.decorator_list)
        for m in s.body:
            if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef):
                self.callable_kind(m, env)
                plain = False
            elif isinstance(m, ast.Expr) and isinstance(m.value, ast.Constant):
                continue  # a docstring
            else:
                self._stmt(m, body)
                plain = plain and isinstance(m, ast.Assign | ast.AnnAssign)
                names += [n.id for n in ast.walk(m) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        # every name the body binds (tuple targets, walrus too) is a field; one the analysis did not see bound
        # is anything (a record's missing key would read as its other fields)
        kind = K.record([(n, body.get(n, UNKNOWN)) for n in dict.fromkeys(names)]) if plain and names else UNKNOWN
        self._bind_name(s.name, kind, env)

    def _loop(self, env: dict[str, Kind], one) -> Kind | None:
        """A loop body ``one(env)``: iterated quietly until the kinds at its head settle (loop-carried
        values, ``continue``/``break`` paths), then once more to report; the loop may also not run."""
        self.quiet += 1
        try:
            for i in range(_LOOP_ROUNDS):
                snaps: list[dict[str, Kind]] = []
                self.loop_snaps.append(snaps)
                e = dict(env)
                try:
                    one(e)
                finally:
                    self.loop_snaps.pop()
                new = join_envs([env, e, *snaps])
                if new == env:
                    break
                if i == _LOOP_ROUNDS - 2:  # not settling: what still changes may be anything
                    new = {n: (k if env.get(n) == k else merge(k, UNKNOWN)) for n, k in new.items()}
                env.clear()
                env.update(new)
        finally:
            self.quiet -= 1
        snaps = []
        self.loop_snaps.append(snaps)
        e = dict(env)
        try:
            ret = one(e)
        finally:
            self.loop_snaps.pop()
        new = join_envs([env, e, *snaps])
        env.clear()
        env.update(new)
        return ret

    def _match(self, s: ast.Match, env: dict[str, Kind]) -> Kind | None:
        ks = self._kind(s.subject, env, s)
        envs, ret = [dict(env)], None
        for case in s.cases:
            e = dict(env)
            self._pattern(case.pattern, ks, e, s)
            if case.guard is not None:
                self._kind(case.guard, e, s)
            ret = _merge_ret(ret, self._body(case.body, e))
            envs.append(e)
        env.clear()
        env.update(join_envs(envs))
        return ret

    def _pattern(self, p: ast.pattern, ks: Kind, env: dict[str, Kind], s) -> None:
        """Bind a ``case`` pattern's captures; comparing a possible tensor with a value is compute."""
        sub = K.element(ks)
        if isinstance(p, ast.MatchValue):
            self._kind(p.value, env, s)
            if ks.tag is Tag.TENSOR:
                self.compute(p, "eq", "comparing a tensor in a match pattern")
            elif ks.maybe_tensor:
                self.unknown(p, "comparison in a match pattern")
        elif isinstance(p, ast.MatchAs):
            if p.pattern is not None:
                self._pattern(p.pattern, ks, env, s)
            if p.name:
                self._bind_name(p.name, ks, env)
        elif isinstance(p, ast.MatchOr):
            alts = []
            for alt in p.patterns:
                e = dict(env)
                self._pattern(alt, ks, e, s)
                alts.append(e)
            env.update(join_envs(alts))
        elif isinstance(p, ast.MatchSequence):
            for x in p.patterns:
                self._pattern(x, sub, env, s)
        elif isinstance(p, ast.MatchStar):
            if p.name:
                self._bind_name(p.name, K.items(sub) if ks.tag is not Tag.SCALAR else SCALAR, env)
        elif isinstance(p, ast.MatchMapping):
            for key in p.keys:
                self._kind(key, env, s)
            for x in p.patterns:
                self._pattern(x, sub, env, s)
            if p.rest:
                self._bind_name(p.rest, ks if ks.tag in (Tag.SCALAR, Tag.ITEMS) else UNKNOWN, env)
        elif isinstance(p, ast.MatchClass):
            self._kind(p.cls, env, s)
            part = K.element(ks) if ks.tag is Tag.SCALAR else UNKNOWN
            for x in [*p.patterns, *p.kwd_patterns]:
                self._pattern(x, part, env, s)

    # --- bindings ---------------------------------------------------------------------------------
    def _bind(self, target: ast.AST, kind: Kind, env: dict[str, Kind], stmt) -> None:
        if isinstance(target, ast.Name):
            self._bind_name(target.id, kind, env)
        elif isinstance(target, ast.Tuple | ast.List):
            if kind.tag is Tag.INDEXED and len(target.elts) == 2:  # i, item = enumerate's pair
                self._bind(target.elts[0], SCALAR, env, stmt)
                self._bind(target.elts[1], kind.inner or UNSET, env, stmt)
                return
            star = any(isinstance(e, ast.Starred) for e in target.elts)
            for i, e in enumerate(target.elts):
                if isinstance(e, ast.Starred):
                    self._bind(e.value, K.items(K.element(kind)), env, stmt)
                else:
                    sub = K.field(kind, i) if kind.tag is Tag.RECORD and not star else K.element(kind)
                    self._bind(e, sub, env, stmt)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, kind, env, stmt)
        elif isinstance(target, ast.Subscript):
            kc = self._kind(target.value, env, target)
            ks = self._kind(target.slice, env, target)
            if kc.tag is Tag.TENSOR and _plain_slice(ks) and not kind.has_data \
                    and kind.tag in (Tag.TENSOR, Tag.SCALAR):
                return  # xp[:, p:p + n] = x: a view and copy_ (or fill_), data moved, nothing computed
            if kc.tag is Tag.TENSOR:
                self.compute(target, "copy", "writing into a tensor with indexing (copy_/fill)")
            elif kc.tag in (Tag.UNKNOWN, Tag.UNSET, Tag.META):
                self.unknown(target, "writing with indexing (copy_/fill)")
            else:
                self.mutate(target.value, kind if ks.tag in (Tag.SCALAR, Tag.NONE) else merge(kind, ks), env, target)
        elif isinstance(target, ast.Attribute):
            base = target.value
            if isinstance(base, ast.Name) and base.id == "self" and "self" not in env:
                self.store_self(self.cur_cls, target.attr, kind)
                return
            kb = self._kind(base, env, target)
            if kb.tag is Tag.TENSOR and target.attr not in T.TENSOR_SETTABLE:  # in init code too: a method the
                self.flag(target, f"storing .{target.attr} on a tensor (an attribute of its own shadows its "  # harness
                          "methods; tensors hold data, not values of yours)", "tensor_attribute")  # would call
            if kb.tag is Tag.USERMOD:
                self.store_self(kb.arg, target.attr, kind)
            elif kb.tag is Tag.CTX:  # ctx.scale = s: kept for backward like save_for_backward
                self.store_self(f"{kb.arg}.ctx", target.attr, kind)
            else:
                if kind.maybe_tensor or K.host_object(kind) or kb.tag is not Tag.CLASS:
                    self.unknown(target, f"storing a value as attribute .{target.attr} of another object")
                if kb.tag is Tag.CLASS:  # Holder.a = t (in init code too): Holder.a is t wherever it is read
                    self.store_self(kb.arg, target.attr, kind)

    def _bind_name(self, name: str, kind: Kind, env: dict[str, Kind]) -> None:
        scope = self.scopes[-1]
        if isinstance(scope, ast.Module) or name in S.globals_of(scope):
            self.store_module(name, kind)
            if isinstance(scope, ast.Module):
                env[name] = kind
            return
        env[name] = kind
        self.binds.add((id(scope), name), kind)

    def rebind(self, name: str, kind: Kind, env: dict[str, Kind]) -> None:
        """``name`` now has ``kind`` (a container that received more, a closure's write-back)."""
        scope = self.scopes[-1]
        if self.free_writes and not isinstance(scope, ast.Module) and name not in S.locals_of(scope):
            self.free_writes[-1].add(name)
        if name in env or isinstance(scope, ast.Module) or name in S.globals_of(scope):
            self._bind_name(name, kind, env)
        else:
            self.store_module(name, kind)

    # --- stores into containers -------------------------------------------------------------------
    def mutate(self, target: ast.expr, item: Kind, env: dict[str, Kind], at: ast.AST) -> None:
        """The container ``target`` now also holds ``item``: every name that may share it follows."""
        if isinstance(target, ast.Subscript):  # an inner container: the outer one holds it
            self.mutate(target.value, item, env, at)
            return
        if isinstance(target, ast.Attribute):
            base = target.value
            if isinstance(base, ast.Name) and base.id == "self" and "self" not in env:
                self.store_self(self.cur_cls, target.attr, K.items(item))
                return
            kb = self._kind(base, env, at)
            if kb.tag in (Tag.USERMOD, Tag.CLASS):
                self.store_self(kb.arg, target.attr, K.items(item))
            elif item.maybe_tensor and not self._kind(target, env, at).maybe_tensor:
                self.unknown(at, "storing into a container the gate cannot follow")
            return
        if not isinstance(target, ast.Name):
            if item.maybe_tensor and not self._kind(target, env, at).maybe_tensor:
                self.unknown(at, "storing into a container the gate cannot follow")
            return
        scope = self.scopes[-1]
        group = S.alias_groups(scope).get(target.id, frozenset({target.id}))
        atoms = S.scalar_names(scope)
        old = env.get(target.id) or self._name(target, env)
        came = S.origins(scope).get(target.id, frozenset()) | {target.id}
        if item.maybe_tensor and not old.maybe_tensor and came & S.opaque_names(scope):
            self.unknown(at, f"storing into {target.id}, which may be a container held elsewhere")
        for m in sorted(group):
            if (m != target.id and m in atoms) or m in self.ix.imports or m in self.ix.aliases:
                continue
            if "." in m:  # an attribute path: the object's table of attributes gets it
                root, attr = m.split(".", 1)
                kb = Kind(Tag.USERMOD, self.cur_cls) if root == "self" and "self" not in env else env.get(root, UNSET)
                if kb.tag is Tag.USERMOD:
                    self.store_self(kb.arg, attr, K.items(item))
                continue
            self._param_store(m, item, at)
            if m in env:
                self.rebind(m, K.container_of(env[m], item), env)
            else:  # a module-level container (the book joins it with its other values)
                self.store_module(m, K.items(item))

    def _param_store(self, name: str, item: Kind, at: ast.AST) -> None:
        """A store into a container a parameter refers to: the caller's argument holds ``item`` too
        (recorded for the call sites of a function; a lambda's callers cannot be followed)."""
        scope = self.scopes[-1]
        if isinstance(scope, ast.Module) or not item.maybe_tensor:
            return
        a = scope.args
        params = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None}
        if name not in params:
            return
        if self.fn_key is not None and self.funcs[self.fn_key].node is scope:
            self.mutates.add((self.fn_key, name), item)
        else:
            self.unknown(at, f"storing into container {name} passed in (the gate cannot follow it)")

    def binop(self, kl: Kind, kr: Kind) -> Kind:
        if Tag.TENSOR in (kl.tag, kr.tag):
            return K.tainted(TENSOR, [kl, kr])
        if kl.tag is Tag.SCALAR and kr.tag is Tag.SCALAR:  # [0] * n is a sequence, n * 2 a number
            return K.scalar(kl.flavours | kr.flavours)
        if {kl.tag, kr.tag} <= {Tag.SCALAR, Tag.OPAQUE}:
            return K.OPAQUE
        if kl.tag in (Tag.ITEMS, Tag.RECORD) or kr.tag in (Tag.ITEMS, Tag.RECORD):
            return K.items(merge(K.element(kl), K.element(kr)))
        return UNKNOWN


def _merge_ret(a: Kind | None, b: Kind | None) -> Kind | None:
    if b is None:
        return a
    return b if a is None else merge(a, b)


def _plain_slice(kind: Kind) -> bool:
    """An index of numbers, slices of numbers and ``...``/None only (no tensor, no data read out of one): a
    store through it is a view plus ``copy_``; a tensor index would scatter."""
    return not kind.has_data and kind.tag in (Tag.SCALAR, Tag.NONE)
