"""What the data-path analysis (`leap.sandbox.gate.static_dataflow`) analyses, and in which mode: the
candidate's functions and methods, their classes' families and method resolution, which code is on the
data path (reached from ``forward``), which runs at import time (reached from module-level code) and which
is init code (``__init__`` and other methods off the path); which lambdas are only ever launch grids.
Also `Book`, the per-pass record of joined kinds.
"""

from __future__ import annotations

import ast
import functools
import importlib
import sys

from leap.sandbox.gate.static_index import ModuleIndex
from leap.sandbox.gate.static_kinds import UNSET, Kind, merge
from leap.sandbox.gate.static_scopes import foreign_attr_stores

ENTRY_METHODS = ("forward", "__call__", "backward")
# Methods of a torch.autograd.Function that take its ctx first. backward, jvp and vjp run only for
# gradients, which the sandbox never computes (forward runs under no_grad): they are off the data path
# (init code: the safety rules hold there, PyTorch compute does not count). ``apply`` calls setup_context
# after forward on every call, gradients or not: it is on the path.
AUTOGRAD_CTX_METHODS = ("forward", "backward", "setup_context", "jvp", "vjp")
AUTOGRAD_OFF_PATH = ("backward", "jvp", "vjp")
# Methods Python runs only while a class or an object is built: with what they call, init code.
INIT_METHODS = ("__init__", "__new__", "__post_init__", "__init_subclass__", "__set_name__")
# Library methods a candidate may override that the library calls only while the object is built.
INIT_ONLY_OVERRIDES = ("reset_parameters", "_reset_parameters")
# Calls that run a function argument at once (``module.apply(init_fn)``): the argument stays init code.
IMMEDIATE_CALLERS = ("apply",)
EXCLUDED_FUNCS = ("get_inputs", "get_init_inputs", "get_small_inputs")
Key = tuple[str | None, str]


class Book:
    """Kinds recorded during the current pass (``nxt``) over those settled by the previous one (``cur``)."""

    def __init__(self):
        self.cur: dict = {}
        self.nxt: dict = {}

    def get(self, key) -> Kind:
        return merge(self.cur.get(key, UNSET), self.nxt.get(key, UNSET))

    def add(self, key, k: Kind) -> None:
        self.nxt[key] = merge(self.nxt.get(key, UNSET), k)

    def where(self, first) -> dict:
        """``{rest: kind}`` for the keys ``(first, rest)``."""
        out: dict = {}
        for d in (self.cur, self.nxt):
            for key, k in d.items():
                if key[0] == first:
                    out[key[1]] = merge(out.get(key[1], UNSET), k)
        return out

    def roll(self, accumulate: bool) -> bool:
        """End a pass; True when anything changed. ``accumulate`` joins instead of replacing."""
        new = dict(self.nxt)
        if accumulate:
            for key, k in self.cur.items():
                new[key] = merge(k, new.get(key, UNSET))
        changed = new != self.cur
        self.cur, self.nxt = new, {}
        return changed


class Plan:
    def __init__(self, ix: ModuleIndex, kernel_ids: set[int]):
        self.ix = ix
        self.kernel_ids = kernel_ids
        self.model_like = {n for n in ix.classes if n == "Model"}
        self.autograd = {c for c, node in ix.classes.items()
                         if any(b.startswith("torch.autograd") for b in ix.class_bases(node))}
        self.functions: dict[Key, ast.FunctionDef] = {}
        for cname, cls in ix.classes.items():
            if cname in self.model_like:
                continue
            for stmt in cls.body:
                if isinstance(stmt, ast.FunctionDef) and (cname, stmt.name) not in ix.jit_methods:
                    self.functions[(cname, stmt.name)] = stmt
        for fname, fn in ix.functions.items():
            if isinstance(fn, ast.FunctionDef) and fname not in ix.jit and id(fn) not in kernel_ids:
                self.functions[(None, fname)] = fn
        self.bases = {c: [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in ix.classes]
                      for c, node in ix.classes.items()}
        self._family = {c: c for c in ix.classes}
        for c, bs in self.bases.items():
            for b in bs:
                self._family[self.family(b)] = self.family(c)
        self.method_names = {k[1] for k in self.functions if k[0] is not None}
        self.library_named = {k for k in self.functions if k[0] is not None and self._library_method(*k)}
        self.generators = {k for k, fn in self.functions.items() if _is_generator(fn)}
        self.fields = {c: _fields(node, ix) for c, node in ix.classes.items() if _record_class(node, ix)}
        self.foreign_stores = foreign_attr_stores(ix.tree)
        self.class_stored = _class_stored(ix)
        path = self._path()
        done = set(path)
        self.import_keys = sorted(self._closure(self._refs_module()) - done, key=_order)
        done |= set(self.import_keys)
        init_roots = {k for k in self.functions if k[0] is not None and k not in done and (
            k[1] in INIT_METHODS or k[1] in INIT_ONLY_OVERRIDES or self.off_path(k))}
        init = self._closure(init_roots) - done
        # a method named by neither forward, module code nor init code may still run in forward: Python and
        # libraries call methods by name ({**self} calls keys, print(file=self) write, np.amax(self) max,
        # hasattr(self, "p") a property): default deny, it is on the data path
        unnamed = {k for k in self.functions if k[0] is not None and k not in done | init}
        path |= self._closure(unnamed) - set(self.import_keys)
        self.path_keys = sorted(path, key=_order)
        self.init_keys = sorted(init - path, key=_order)

    # --- classes ---------------------------------------------------------------------------------
    def family(self, cls: str) -> str:
        """One name for a class and every candidate class it inherits from or that inherits from it (they
        share one table of attributes)."""
        if cls not in self._family:
            return cls
        while self._family[cls] != cls:
            cls = self._family[cls]
        return cls

    def mro(self, cls: str) -> list[str]:
        """The candidate's classes in ``cls``'s method resolution order (C3, as Python computes it; library
        bases left out)."""
        return _c3(cls, lambda c: [b for b in self.bases.get(c, []) if b in self.ix.classes], set()) \
            if cls in self.ix.classes else []

    def resolve(self, cls: str | None, name: str) -> list[Key]:
        """The methods ``name`` of ``cls`` may run: its own or inherited one, and overrides in its family."""
        if cls is None:
            return []
        fam = self.family(cls)
        own = next(((c, name) for c in self.mro(cls) if (c, name) in self.functions), None)
        out = [own] if own else []
        out += [k for k in self.functions if k[1] == name and k[0] is not None and k != own
                and self.family(k[0]) == fam and cls in self.mro(k[0])]
        return out

    def jit_method(self, cls: str | None, attr: str) -> str | None:
        return next((f"{c}.{attr}" for c in self.mro(cls or "") if (c, attr) in self.ix.jit_methods), None)

    def offset(self, key: Key) -> int:
        """1 when the first parameter is ``self``/``cls`` (bound at the call), else 0."""
        node = self.functions[key]
        if key[0] is None:
            return 0
        return 0 if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list) else 1

    def is_property(self, key: Key) -> bool:
        return any(self.ix.qualname(d) == "functools.cached_property" or isinstance(d, ast.Name) and d.id == "property"
                   for d in self.functions[key].decorator_list)

    def is_classmethod(self, key: Key) -> bool:
        return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in self.functions[key].decorator_list)

    def is_static_or_class(self, key: Key) -> bool:
        """A staticmethod or classmethod: read through the class it is the function itself (callable)."""
        return any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                   for d in self.functions[key].decorator_list)

    def kernel_name(self, stmt: ast.AST, cls: str | None) -> str | None:
        """The name of the kernel ``stmt`` defines (for the lambdas of its decorators), if it is one."""
        if not isinstance(stmt, ast.FunctionDef):
            return None
        if cls is None:
            return stmt.name if stmt.name in self.ix.jit else None
        return f"{cls}.{stmt.name}" if (cls, stmt.name) in self.ix.jit_methods else None

    def skipped_nodes(self) -> set[int]:
        """The reference Model and the input generators: not the candidate's code path."""
        skip: set[int] = set()
        for node in self.ix.tree.body:
            if isinstance(node, ast.ClassDef) and node.name in self.model_like:
                skip.update(id(n) for n in ast.walk(node))
            if isinstance(node, ast.FunctionDef) and node.name in EXCLUDED_FUNCS:
                skip.update(id(n) for n in ast.walk(node))
        for node in ast.walk(self.ix.tree):
            if isinstance(node, ast.FunctionDef) and id(node) in self.kernel_ids:
                skip.update(id(n) for n in ast.walk(node))  # decorators: analysed with the module
        return skip

    # --- reachability ----------------------------------------------------------------------------
    def _path(self) -> set[Key]:
        roots = {k for k in self.functions if k[0] is not None and k[0] not in self.model_like
                 and (k[1] in ENTRY_METHODS or _implicit(k[1]) or k in self.library_named)
                 and not self.off_path(k)}
        roots |= self.generators  # a generator's body runs when it is advanced, wherever it was built
        skip = self.skipped_nodes()
        for node in ast.walk(self.ix.tree):
            if id(node) in skip:
                continue
            roots |= self._value_refs(node)  # named as a value (stored, passed): may be called from forward
            if (isinstance(node, ast.Lambda | ast.GeneratorExp | ast.FunctionDef | ast.AsyncFunctionDef)
                    and self._nested(node)):
                roots |= self._refs(node)  # a lambda, generator expression or nested function may run in forward
        return self._closure({k for k in roots if not (k[0] is None and k[1] in EXCLUDED_FUNCS)})

    def off_path(self, key: Key) -> bool:
        """An autograd Function's backward (jvp, vjp, setup_context): never run by the sandbox."""
        return key[0] in self.autograd and key[1] in AUTOGRAD_OFF_PATH

    def _library_method(self, cls: str, name: str) -> bool:
        """A method the class's library base defines (``nn.Module._call_impl``, ``Enum._missing_``): the
        library may call it implicitly, by name. A library base that cannot be looked up: any method."""
        if name == "__init__" or name in INIT_ONLY_OVERRIDES:
            return False
        for c in self.mro(cls):
            for q in self.ix.class_bases(self.ix.classes[c]):
                if not q or q in self.ix.classes or q in ("object", "builtins.object"):
                    continue
                base = lookup(q)
                if base is None or hasattr(base, name):
                    return True
        return False

    def _nested(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Lambda | ast.GeneratorExp):
            return True
        return not any(node is f for f in self.functions.values()) and id(node) not in self.kernel_ids

    def _closure(self, roots: set[Key]) -> set[Key]:
        seen = {k for k in roots if k in self.functions}
        todo = list(seen)
        while todo:
            key = todo.pop()
            for r in self._refs(self.functions[key]):
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
        return seen

    def _refs(self, root: ast.AST) -> set[Key]:
        out: set[Key] = set()
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and (None, node.id) in self.functions:
                out.add((None, node.id))
            elif isinstance(node, ast.Name) and node.id in self.ix.classes:  # built (or its __init__ run) here
                for c in [*self.mro(node.id), *[k for k in self.ix.classes if node.id in self.mro(k)]]:
                    out |= {k for k in self.functions if k[0] == c and (k[1] in ("__init__", *ENTRY_METHODS)
                                                                       or _implicit(k[1])) and not self.off_path(k)}
            elif isinstance(node, ast.Attribute) and node.attr in self.method_names:
                out |= {k for k in self.functions if k[1] == node.attr and k[0] is not None}
        return out

    def _refs_module(self) -> set[Key]:
        """Functions module-level code refers to (statements, class bodies, decorators, defaults)."""
        out: set[Key] = set()

        def visit(stmts):
            for s in stmts:
                if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
                    for x in [*s.decorator_list, *s.args.defaults, *(d for d in s.args.kw_defaults if d)]:
                        out.update(self._refs(x))
                elif isinstance(s, ast.ClassDef):
                    if s.name not in self.model_like:
                        for x in [*s.decorator_list, *s.bases]:
                            out.update(self._refs(x))
                        visit(s.body)
                else:
                    out.update(self._refs(s))
        visit(self.ix.tree.body)
        return out

    def _value_refs(self, node: ast.AST) -> set[Key]:
        """Functions named as a value by one of ``node``'s direct children (stored, passed as an argument;
        not the called function itself, nor the argument of a call that runs it at once), and the constructors
        of classes named so."""
        out: set[Key] = set()
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in IMMEDIATE_CALLERS:
                return out
            if isinstance(node.func, ast.Name) and node.func.id == "super" and "super" not in self.ix.defined_names:
                return out  # super(ModelNew, self): the class names the MRO to search, nothing builds it
            children = [c for c in children if c is not node.func]
        for child in children:
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and (None, child.id) in self.functions:
                out.add((None, child.id))
            elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and child.id in self.ix.classes:
                out |= self._refs(child)  # a class stored or passed: whoever holds it may build it in forward
            elif isinstance(child, ast.Attribute) and child.attr in self.method_names and child.attr != "__init__":
                out |= {k for k in self.functions if k[0] is not None and k[1] == child.attr}  # a bound method
        return out


def grid_callables(ix: ModuleIndex, plan: Plan) -> set[int]:
    """Lambdas and functions only ever used as a Triton launch grid (``k[grid](...)``), directly, through a
    name, or through a parameter of the candidate's own function that is itself only used as one: Triton
    calls them with the launch's meta dict."""
    parents = {id(c): p for p in ast.walk(ix.tree) for c in ast.iter_child_nodes(p)}

    def grid_slot(node: ast.AST) -> bool:
        p = parents.get(id(node))
        return (isinstance(p, ast.Subscript) and p.slice is node and isinstance(parents.get(id(p)), ast.Call)
                and parents[id(p)].func is p)

    grid_params: dict[Key, set[str]] = {}
    for key, fn in plan.functions.items():
        loads: dict[str, list[ast.Name]] = {}
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                loads.setdefault(n.id, []).append(n)
        args = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]
        grid_params[key] = {a for a in args if loads.get(a) and all(grid_slot(n) for n in loads[a])}

    def to_grid_param(node: ast.AST) -> bool:
        call = parents.get(id(node))
        if not isinstance(call, ast.Call) or call.func is node:
            kw = call if isinstance(call, ast.keyword) else None
            if kw is None or kw.arg is None:
                return False
            call = parents.get(id(kw))
            keys = _callees(call, plan) if isinstance(call, ast.Call) else []
            return bool(keys) and all(kw.arg in grid_params.get(k, set()) for k in keys)
        if node not in call.args or any(isinstance(a, ast.Starred) for a in call.args):
            return False
        i = call.args.index(node)
        keys = _callees(call, plan)
        return bool(keys) and all(_param_at(plan, k, i) in grid_params.get(k, set()) for k in keys)

    out: set[int] = set()
    named: dict[str, list[ast.AST]] = {}
    for node in ast.walk(ix.tree):
        if isinstance(node, ast.Lambda) and (grid_slot(node) or to_grid_param(node)):
            out.add(id(node))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    named.setdefault(t.id, []).append(node.value)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not isinstance(
                parents.get(id(node)), ast.Module | ast.ClassDef):  # nested defs (module ones are functions)
            named.setdefault(node.name, []).append(node)
    for name, defs in named.items():
        uses = [n for n in ast.walk(ix.tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if all(grid_slot(n) or to_grid_param(n) for n in uses):  # an unused one too
            out.update(id(d) for d in defs)
    return out


def _callees(call: ast.Call, plan: Plan) -> list[Key]:
    f = call.func
    if isinstance(f, ast.Name) and (None, f.id) in plan.functions:
        return [(None, f.id)]
    if isinstance(f, ast.Attribute):
        return [k for k in plan.functions if k[0] is not None and k[1] == f.attr]
    return []


def _param_at(plan: Plan, key: Key, i: int) -> str | None:
    fn = plan.functions[key]
    names = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]][plan.offset(key):]
    return names[i] if i < len(names) else None


def _record_class(node: ast.ClassDef, ix: ModuleIndex) -> bool:
    """A dataclass or a typing.NamedTuple class: its constructor stores its arguments as fields."""
    decos = [ix.qualname(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
    return "dataclasses.dataclass" in decos or any(ix.qualname(b) in ("typing.NamedTuple", "typing_extensions.NamedTuple")
                                                   for b in node.bases)


def _c3(cls: str, bases_of, seen: set[str]) -> list[str]:
    """C3 linearisation of ``cls`` over ``bases_of``; where it fails (Python refuses such a class) or a class
    inherits from itself, a breadth-first order."""
    if cls in seen:
        return [cls]
    bases = bases_of(cls)
    seqs = [_c3(b, bases_of, seen | {cls}) for b in bases] + [list(bases)]
    out = [cls]
    while any(seqs):
        seqs = [q for q in seqs if q]
        head = next((q[0] for q in seqs if not any(q[0] in r[1:] for r in seqs)), None)
        if head is None:  # inconsistent: breadth-first
            todo, out = [cls], []
            while todo:
                c = todo.pop(0)
                if c not in out:
                    out.append(c)
                    todo.extend(bases_of(c))
            return out
        out.append(head)
        seqs = [q[1:] if q[0] == head else q for q in seqs]
    return out


def _fields(node: ast.ClassDef, ix: ModuleIndex) -> list[str]:
    """Annotated names of a record class but its ``typing.ClassVar`` ones (found through the imports, an alias
    included; a string annotation counts as a field: more fields than dataclasses makes is the safe side)."""
    def classvar(a: ast.expr) -> bool:
        head = a.value if isinstance(a, ast.Subscript) else a
        return ix.qualname(head) == "typing.ClassVar"
    return [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            and not classvar(s.annotation)]


def plain_fields(node: ast.ClassDef, ix: ModuleIndex) -> bool:
    """Positional constructor arguments fill the fields in the order written: a bare ``@dataclass`` (or a
    NamedTuple) whose annotations are plain resolved names (no strings, no ClassVar/InitVar/KW_ONLY) and whose
    ``field(...)`` calls give only a default."""
    for d in node.decorator_list:
        if isinstance(d, ast.Call) and (d.args or d.keywords):
            return False
    for s in node.body:
        if isinstance(s, ast.AnnAssign):
            if any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(s.annotation)):
                return False
            names = {ix.qualname(n) for n in ast.walk(s.annotation) if isinstance(n, ast.Name | ast.Attribute)}
            if names & {"typing.ClassVar", "dataclasses.InitVar", "dataclasses.KW_ONLY"}:
                return False
            if isinstance(s.value, ast.Call) and any(k.arg not in ("default", "default_factory")
                                                     for k in s.value.keywords):
                return False
    return True


def _is_generator(fn: ast.FunctionDef) -> bool:
    """``fn`` itself yields (not a function or lambda nested in it)."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(n))
    return False


# library roots whose modules the gate imports to look names up (the same answer whatever the judge's process
# happened to import before: a library base that cannot be looked up makes every method library-named)
IMPORTABLE = ("torch", "numpy", "triton", "typing", "enum", "collections", "dataclasses", "abc", "numbers",
              "functools", "itertools", "math")


def lookup(qualname: str):
    """The object a library qualified name denotes (None if none), importing its module when it is one of
    `IMPORTABLE`'s."""
    parts = qualname.split(".")
    if parts[0] in IMPORTABLE:
        for i in range(len(parts), 0, -1):
            try:
                importlib.import_module(".".join(parts[:i]))
                break
            except Exception:  # noqa: BLE001,S112 - not a module (an attribute): try the shorter name
                continue
    for i in range(len(parts), 0, -1):
        mod = sys.modules.get(".".join(parts[:i]))
        if mod is None:
            continue
        obj = mod
        for attr in parts[i:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


@functools.cache
def module_private() -> frozenset[str]:
    """torch.nn.Module's own private names (its hook tables, parameters, buffers, submodules, call machinery):
    a candidate class inherits them, so ``self._forward_pre_hooks`` reaches library state the way the refused
    ``register_forward_pre_hook`` does."""
    cls = lookup("torch.nn.Module")
    if cls is None:
        return frozenset()
    return frozenset(n for n in (*dir(cls), *vars(cls())) if n.startswith("_") and not n.startswith("__"))


def _class_stored(ix: ModuleIndex) -> frozenset[str]:
    """Attribute names that may be stored on a class (its body, ``Cls.f = g``, ``type(self).f = g``): a function
    there binds the instance when called through it. Only ``self.f = g`` is known to store on the instance."""
    out = {n.id for c in ix.classes.values() for s in c.body if isinstance(s, ast.Assign | ast.AnnAssign)
           for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) for n in ast.walk(t)
           if isinstance(n, ast.Name)}
    out |= {n.attr for n in ast.walk(ix.tree) if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load)
            and not (isinstance(n.value, ast.Name) and n.value.id == "self")}
    return frozenset(out)


def _implicit(name: str) -> bool:
    return name != "__init__" and name.startswith("__") and name.endswith("__")


def _order(k: Key) -> tuple[str, str]:
    return (k[0] or "", k[1])
