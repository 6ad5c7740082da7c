"""Whole-file policy rules of the static gate (`leap.sandbox.gate.static_gate`), independent of the data
path: imports, forbidden names (also a library re-entered through an attribute, ``torch.nn.init.torch``),
modules used as plain values, dunders, rebinding of names the analysis relies on, stores into imported
modules, the environment, streams, dynamic attribute access, autotune sizes."""

from __future__ import annotations

import ast
import re
import string
import sys
import types
from dataclasses import dataclass
from functools import lru_cache

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate.static_index import ModuleIndex, kernel_defs, own_attrs, str_constants
from leap.sandbox.gate.static_plan import lookup, module_private
from leap.sandbox.gate.static_scopes import only_a_class, own_nodes, plain_annotation

# mutable containers whose methods, taken through the class, store into an object passed as an argument
_MUTABLE_BUILTINS = {"dict": dict, "list": list, "set": set, "bytearray": bytearray, "object": object}
_MUTABLE_LIBRARY_TYPES = frozenset({"collections.deque", "collections.OrderedDict", "collections.defaultdict",
                                    "collections.Counter", "collections.ChainMap", "collections.UserDict",
                                    "collections.UserList", "types.SimpleNamespace"})
_UNBOUND = (types.MethodDescriptorType, types.WrapperDescriptorType, types.FunctionType)

MAX_AUTOTUNE_CONFIGS = 64


@dataclass(frozen=True)
class Finding:
    """One rule broken at one place of the candidate's source (1-based line, 0-based column)."""

    rule: str
    line: int
    col: int
    message: str


def forbidden_qualname(q: str) -> str | None:
    """Why a fully qualified name is rejected wherever it appears, or None."""
    root = q.split(".")[0]
    if root not in T.ALLOWED_IMPORT_ROOTS:
        return f"module {root} is not allowed"
    if root == "os" and q not in T.OS_ALLOWED:
        return f"{q} is not allowed"
    if root == "sys" and q not in T.SYS_ALLOWED:
        return f"{q} is not allowed"
    for p in T.FORBIDDEN_PREFIXES:
        if (q == p or q.startswith(p + ".")) and not q.startswith(T.ALLOWED_UNDER_FORBIDDEN):
            return f"{q} is not allowed"
    parts = q.split(".")
    if parts[-1] in T.FORBIDDEN_METHODS:  # a hook registrar or storage accessor, however it is imported
        return f"{q} is not allowed"
    if any(p.startswith("_") and not (p in T.ALLOWED_DUNDER_ATTRS or p == "__future__") for p in parts[1:]) \
            and q not in T.PRIVATE_ALLOWED:
        return f"private name {q}"
    again = T.reentry(q)
    if again is not None:
        return f"{q} reaches module {again} through an attribute"
    if root == "torch" and len(parts) == 2 and parts[1].startswith("set_") and q != "torch.set_grad_enabled":
        return f"{q} changes global state"
    other = reached_module(q)
    if other is not None:
        return f"{q} reaches module {other} through an attribute"
    return None


@lru_cache(maxsize=4096)
def reached_module(q: str) -> str | None:
    """The module of another package that ``q``'s attribute chain really reaches (``typing.sys`` is ``sys``,
    ``numpy.f2py.subprocess`` is ``subprocess``), read from the modules the judge has loaded: only entries
    already in a module's ``__dict__`` are followed (no import, no lazy ``__getattr__``); None when the
    chain stays in its own package or leaves what is loaded."""
    parts = q.split(".")
    obj = sys.modules.get(parts[0])
    if not isinstance(obj, types.ModuleType):
        return None
    for part in parts[1:]:
        obj = vars(obj).get(part) if isinstance(obj, types.ModuleType) else None
        if not isinstance(obj, types.ModuleType):
            return None
        name = getattr(obj, "__name__", "") or ""
        if name.split(".")[0] != parts[0]:
            return name
    return None


class PolicyVisitor(ast.NodeVisitor):
    """Whole-file rules that do not depend on the data path."""

    def __init__(self, index: ModuleIndex):
        self.index = index
        self.problems: list[Finding] = []
        self.parents: dict[int, ast.AST] = {}
        self.import_names = {(a.asname or a.name).split(".")[0] if not a.asname else a.asname
                             for n in ast.walk(index.tree) if isinstance(n, ast.Import) for a in n.names}
        self.in_kernels = {id(n) for k in kernel_defs(index) for n in ast.walk(k)}
        self.own_attrs = own_attrs(index.tree)
        self.str_constants = str_constants(index.tree)
        self.method_names = {f.name for c in index.classes.values() for f in c.body
                             if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}

    def run(self, tree: ast.Module) -> list[Finding]:
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[id(child)] = parent
        self.visit(tree)
        return self.problems

    def add(self, node: ast.AST, rule: str, msg: str) -> None:
        self.problems.append(Finding(rule, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), msg))

    # --- statements -------------------------------------------------------------------------------
    def visit_If(self, node: ast.If) -> None:
        """A module-level ``if __name__ == "__main__":`` body never runs under the judge (a self-test block
        may use torch.testing, seeds, benchmarks): only its test and ``else`` are checked."""
        if id(node) in self.index.unrun_main_guards:
            for child in [node.test, *node.orelse]:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Try(self, node: ast.AST) -> None:
        self.add(node, "try_except", "try/except is not allowed")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._check_binding(node, a.asname or a.name.split(".")[0])
            why = forbidden_qualname(a.name)
            if why and not self._self_test_import(node, a.name, a.asname or a.name.split(".")[0]):
                self.add(node, "import", f"import {a.name}: {why}")

    def _self_test_import(self, node: ast.stmt, module: str, name: str) -> bool:
        """``import time`` at module level for a self-test block: a module of `SELF_TEST_MODULES` whose name only
        the unrun ``if __name__ == "__main__":`` block uses (importing it does nothing else)."""
        return (module.split(".")[0] in T.SELF_TEST_MODULES and node in self.index.tree.body
                and all(id(n) in self.index.in_main_guards for n in ast.walk(self.index.tree)
                        if isinstance(n, ast.Name) and n.id == name))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.add(node, "import", "relative import")
            return
        mod = node.module or ""
        why = forbidden_qualname(mod)
        for a in node.names:
            self._check_binding(node, a.asname or a.name)
            why = why or (None if a.name == "*" else forbidden_qualname(f"{mod}.{a.name}"))
            if a.name == "*":
                why = why or "star import"
        if why and all(a.name != "*" and self._self_test_import(node, mod, a.asname or a.name) for a in node.names):
            why = None
        if why:
            self.add(node, "import", f"from {mod} import ...: {why}")

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._check_binding(node, node.name)
        a = node.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is not None:
                self._check_binding(node, arg.arg)
        if isinstance(node, ast.AsyncFunctionDef):
            self.add(node, "async", "async functions are not allowed")
        if _is_dunder(node.name) and node.name not in T.ALLOWED_DUNDER_DEFS:
            self.add(node, "dunder_def", f"defining {node.name} is not allowed")
        for ann in [*(x.annotation for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x),
                    node.returns]:
            self._annotation(ann)
        for d in node.decorator_list:
            if isinstance(d, ast.Attribute) and d.attr in ("setter", "getter", "deleter"):
                self.add(d, "property_setter", f"@{ast.unparse(d)}: a property with a setter, getter or deleter runs "
                                               "code on a plain store or read; use a method")
            if isinstance(d, ast.Call) and self.index.qualname(d.func) == "triton.autotune":
                n = _autotune_size(d)
                if n is not None and n > MAX_AUTOTUNE_CONFIGS:
                    self.add(node, "autotune", f"autotune over {n} configs (at most {MAX_AUTOTUNE_CONFIGS})")
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def _ancestors(self, node: ast.AST):
        p = self.parents.get(id(node))
        while p is not None:
            yield p
            p = self.parents.get(id(p))

    def _check_binding(self, node: ast.AST, name: str) -> None:
        if name in T.PROTECTED_NAMES:
            self.add(node, "rebind_builtin", f"rebinding the builtin {name} is not allowed")

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            self._check_binding(node, arg.arg)
        self.generic_visit(node)

    def visit_alias(self, node: ast.alias) -> None:
        self._check_binding(node, node.asname or node.name.split(".")[0])

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._check_binding(node, node.name)
        for b in node.bases:
            q = self.index.qualname(b)
            if q and (q == "torch.Tensor" or q.startswith("torch._C") or q.startswith("torch.Tensor")):
                self.add(node, "tensor_subclass", f"class {node.name} subclasses torch.Tensor")
        if any(k.arg == "metaclass" for k in node.keywords):
            self.add(node, "metaclass", f"class {node.name} sets a metaclass")
        local = any(isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) for p in self._ancestors(node))
        for n in own_nodes(node):
            if isinstance(n, ast.Global | ast.Nonlocal):
                self.add(n, "class_scope", f"{type(n).__name__.lower()} in a class body is not allowed")
            elif local and isinstance(n, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp | ast.Lambda):
                self.add(n, "class_scope", f"a comprehension or lambda in the body of class {node.name}, made inside "
                                           "a function, sees the function's names, not the class's: define it "
                                           "at module level or compute the value outside the class")
        for stmt in node.body:
            if isinstance(stmt, ast.Assign | ast.AnnAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    if isinstance(t, ast.Name) and _is_dunder(t.id):
                        self.add(stmt, "dunder_def", f"class attribute {t.id} is not allowed")
        self.generic_visit(node)

    def _check_store(self, target: ast.AST, stmt: ast.AST) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for e in target.elts:
                self._check_store(e, stmt)
            return
        if isinstance(target, ast.Starred):
            self._check_store(target.value, stmt)
            return
        if isinstance(target, ast.Attribute | ast.Subscript):
            base = target.value
            q = self.index.qualname(base)
            if q == "os.environ" and isinstance(target, ast.Subscript):
                key = target.slice.value if isinstance(target.slice, ast.Constant) else None
                if key not in T.ENV_WRITABLE:
                    self.add(stmt, "environ", f"setting environment variable {key!r} is not allowed")
                return
            if q is not None:
                self.add(stmt, "monkey_patch", f"assignment to an attribute of imported {q}")

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._check_store(t, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign | ast.AnnAssign) -> None:
        self._check_store(node.target, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._annotation(node.annotation)
        self.visit_AugAssign(node)

    def _annotation(self, ann: ast.expr | None) -> None:
        """Annotations run where they stand (a ``def``'s when it is made, a class body's or a module's at once)
        but the analysis does not follow them: names, attributes, subscripts and constants only."""
        if ann is not None and not plain_annotation(ann):
            self.add(ann, "annotation", "an annotation may only name types (names, attributes, subscripts, "
                                        "constants), not compute")

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            self._check_store(t, node)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        ix = self.index
        for name in node.names:
            if name in ix.imports or name in ix.aliases or name in ix.functions or name in ix.classes:
                self.add(node, "global_rebind", f"global {name} rebinds a module-level import, function or class")
        self.generic_visit(node)

    def _module_value(self, node: ast.AST, q: str, name: str = "") -> None:
        """A module may be named only to reach into it (``mod.name``) or to alias it (``m = mod``): as a plain
        value it escapes the name checks (``m = os if c else 0; m.system(...)``)."""
        if not (T.is_module(q) or name in self.import_names):
            return
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return
        if (isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Name)):
            return
        if (isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name)
                and parent.func.id in ("hasattr", "isinstance")):
            return
        self.add(node, "module_value", f"module {q} used as a value (only mod.name or an alias m = mod)")

    def visit_Await(self, node: ast.AST) -> None:
        self.add(node, "async", "await is not allowed")
        self.generic_visit(node)

    # --- expressions ------------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if node.id in T.FORBIDDEN_BUILTINS and node.id not in self.index.module_names \
                and not self._local_name(node):
            self.add(node, "builtin", f"{node.id} is not allowed")
        if isinstance(node.ctx, ast.Store | ast.Del):
            self._check_binding(node, node.id)
        elif node.id in T.DYNAMIC_BUILTINS:
            parent = self.parents.get(id(node))
            if not (isinstance(parent, ast.Call) and parent.func is node):
                self.add(node, "dynamic_attr", f"the builtin {node.id} may only be called directly, not used as a value")
        q = self.index.imports.get(node.id) or self.index.aliases.get(node.id)
        if q is not None and isinstance(node.ctx, ast.Load):
            self._check_qualname(node, q)
            self._module_value(node, q, node.id)

    def _local_name(self, node: ast.Name) -> bool:
        """``node`` names a parameter or local variable of its function (``def forward(self, input)``), not
        the builtin: a parameter (read in the body, not in a default or annotation, which the enclosing
        scope evaluates) or a name any statement of the function itself assigns (Python then takes it as
        local throughout: read unbound it raises, it never reaches the builtin). A comprehension's target is
        the comprehension's, not the function's."""
        child, fn = node, self.parents.get(id(node))
        while fn is not None and not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            child, fn = fn, self.parents.get(id(fn))
        if fn is None or child is fn.args or child in getattr(fn, "decorator_list", ()) \
                or child is getattr(fn, "returns", None):
            return False
        a = fn.args
        if node.id in {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x}:
            return True
        scopes = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef | ast.comprehension
        todo, bound = list(fn.body) if isinstance(fn.body, list) else [fn.body], False
        while todo:
            n = todo.pop()
            if isinstance(n, ast.Global | ast.Nonlocal) and node.id in n.names:
                return False
            if isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Store):
                bound = True
            if isinstance(n, ast.comprehension):  # its iterables and conditions run; its target is its own
                todo.extend([n.iter, *n.ifs])
            elif not isinstance(n, scopes):
                todo.extend(ast.iter_child_nodes(n))
        return bound

    def _format_text(self, node: ast.expr) -> str | None:
        """The format string ``node`` is: a literal, or a module-level name bound once, to a literal."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.str_constants.get(node.id)
        return None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in ("format", "format_map") and self._format_text(node.value) is None:  # any use, called
            self.add(node, "dynamic_attr", f".{node.attr} of a string the gate cannot read (its fields can read "  # or
                     "any attribute by name); use an f-string or a literal format string")  # taken as a value
        if _is_dunder(node.attr) and node.attr not in T.ALLOWED_DUNDER_ATTRS:
            self.add(node, "dunder", f"attribute {node.attr} is not allowed")
        self._attr_name(node, node.attr)
        self._unbound_method(node)
        if node.attr == "__init__" and not self._init_base_ok(node.value):
            self.add(node, "dunder", "calling __init__ other than through super() or a class is not allowed")
        if node.attr in T.FORBIDDEN_METHODS:
            self.add(node, "method", f".{node.attr} is not allowed")
        parent = self.parents.get(id(node))
        if not (isinstance(parent, ast.Attribute) and parent.value is node):
            q = self.index.qualname(node)
            if q is not None:
                self._check_qualname(node, q)
                if isinstance(node.ctx, ast.Load):
                    self._module_value(node, q)
                return  # the chain's inner names are part of this qualified name
        self.generic_visit(node)

    def _unbound_method(self, node: ast.Attribute) -> None:
        """``dict.setdefault(box, k, v)``, ``partial(list.append, box)``: a mutable builtin's method through its
        class takes the object as an argument, out of the analysis's sight of what is stored where."""
        base = node.value
        q = self.index.qualname(base)
        if isinstance(base, ast.Name) and base.id in _MUTABLE_BUILTINS and base.id not in self.index.defined_names:
            cls = _MUTABLE_BUILTINS[base.id]
        elif q in _MUTABLE_LIBRARY_TYPES:
            cls = lookup(q)
        else:
            return
        if not node.attr.startswith("__") and isinstance(getattr(cls, node.attr, None), _UNBOUND):
            self.add(node, "unbound_method", f"{ast.unparse(node)}: call the method on the object "
                                             f"(obj.{node.attr}(...)), not through its class")

    def _attr_name(self, node: ast.AST, attr: str) -> None:
        """Names refused on any object: frame/generator/traceback introspection, file I/O methods."""
        if attr in T.INTROSPECTION_ATTRS or attr.startswith(T.INTROSPECTION_PREFIXES):
            self.add(node, "introspection", f"attribute {attr} (frame, code, generator or traceback "
                                            "introspection) is not allowed")
        elif attr in module_private():
            self.add(node, "private_attr", f".{attr} is torch.nn.Module's private state (hooks, parameters, buffers, "
                                           "submodules): use its public methods")
        elif (attr in T.IO_METHODS or (attr.startswith(T.IO_PREFIXES) and attr not in self.own_attrs)) and (
                attr not in T.IO_ALLOWED and not (id(node) in self.in_kernels or self._named_elsewhere(node))):
            self.add(node, "file_io", f".{attr} (file I/O or serialization) is not allowed")

    def _named_elsewhere(self, node: ast.AST) -> bool:
        """A qualified name: Triton's (``tl.load``), or one the name rules refuse already (``torch.load``)."""
        q = self.index.qualname(node) if isinstance(node, ast.Attribute) else None
        return q is not None and (q.startswith("triton.") or forbidden_qualname(q) is not None)

    def _init_base_ok(self, base: ast.expr) -> bool:
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "super":
            return True
        return self.index.qualname(base) is not None or (isinstance(base, ast.Name) and base.id in self.index.classes)

    def _check_qualname(self, node: ast.AST, q: str) -> None:
        why = forbidden_qualname(q)
        if why:
            self.add(node, "forbidden_name", why)
            return
        if q == "os.environ":
            parent = self.parents.get(id(node))  # only os.environ[KEY] = value (KEY checked at the store)
            if not (isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Store)):
                self.add(node, "environ", "reading or changing the environment is not allowed")

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if self.index.qualname(f) in T.AMP_MARKERS and any(k.arg == "cast_inputs" for k in node.keywords):
            self.add(node, "forbidden_name", "custom_fwd(cast_inputs=...) converts the inputs' dtype outside the "
                                             "kernels")
        if self.index.qualname(f) in T.STREAM_CTORS or (
                isinstance(f, ast.Attribute) and f.attr == "create_stream" and not node.args and not node.keywords):
            self.add(node, "stream", "creating a new stream is not allowed")
        if isinstance(f, ast.Name) and f.id not in self.index.defined_names:
            if f.id in ("getattr", "setattr", "delattr", "hasattr"):
                if len(node.args) < 2 or not (isinstance(node.args[1], ast.Constant)
                                              and isinstance(node.args[1].value, str)):
                    self.add(node, "dynamic_attr", f"{f.id} with a computed name is not allowed")
                elif _is_dunder(node.args[1].value) and node.args[1].value not in T.ALLOWED_DUNDER_ATTRS:
                    self.add(node, "dunder", f"{f.id} of {node.args[1].value} is not allowed")
                else:
                    self._attr_name(node, node.args[1].value)
                if f.id in ("setattr", "delattr") and node.args and self.index.qualname(node.args[0]):
                    self.add(node, "monkey_patch", f"{f.id} on an imported module or class")
                elif f.id in ("setattr", "delattr") and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                        and node.args[1].value in self.method_names:
                    self.add(node, "rebinding", f"{f.id} of {node.args[1].value!r}, a method of the solution's classes")
                elif f.id == "setattr" and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                        and node.args[1].value in _tensor_methods():
                    self.add(node, "tensor_attribute", f"setattr of {node.args[1].value!r}, a method of torch.Tensor "
                                                       "(an attribute of its own shadows it on a tensor)")
            if f.id == "type" and len(node.args) == 3:
                self.add(node, "dynamic_class", "type() with three arguments is not allowed")
            if f.id == "super" and (node.keywords or node.args and not (
                    len(node.args) == 2 and all(isinstance(x, ast.Name) for x in node.args)
                    and node.args[0].id in self.index.classes and only_a_class(self.index.tree, node.args[0].id))):
                self.add(node, "super", "super() takes no arguments or (a class of the solution's own, self): "
                                        "another class's methods reached through super() bypass what the "
                                        "analysis knows of them")
        text = self._format_text(f.value) if isinstance(f, ast.Attribute) and f.attr in ("format", "format_map") \
            else None
        if text is not None:  # "{0.gi_frame}".format(g) reads attributes by name
            for attr in _format_attrs(text):
                if _is_dunder(attr):
                    self.add(node, "dunder", f"format field attribute {attr} is not allowed")
                self._attr_name(node, attr)
        self.generic_visit(node)


def _autotune_size(call: ast.Call) -> int | None:
    """How many configs an ``@triton.autotune(configs=...)`` literal or comprehension spells, if known."""
    node = next((k.value for k in call.keywords if k.arg == "configs"), call.args[0] if call.args else None)
    if isinstance(node, ast.List | ast.Tuple):
        return len(node.elts)
    if isinstance(node, ast.ListComp):
        total = 1
        for g in node.generators:
            it = g.iter
            if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
                return None
            try:
                vals = [ast.literal_eval(a) for a in it.args]
            except ValueError:
                return None
            total *= len(range(*vals))
        return total
    return None






def _format_attrs(text: str) -> list[str]:
    """The attribute names a format string's fields read (``"{0.a[1].b}"`` -> a, b)."""
    out: list[str] = []
    try:
        fields = [f for _, f, spec, _ in string.Formatter().parse(text) for f in (f, spec) if f]
    except ValueError:
        return out
    for name in fields:
        out += re.findall(r"\.([^.\[\]{}]+)", name)
        out += _format_attrs(name) if "{" in name else []
    return out




def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


@lru_cache(maxsize=1)
def _tensor_methods() -> frozenset[str]:
    """The names ``torch.Tensor`` answers with a method (an instance attribute of the same name would shadow
    it; its data descriptors, ``requires_grad`` or ``data``, cannot be shadowed)."""
    import torch

    return frozenset(n for n in dir(torch.Tensor) if not n.startswith("__")
                     and not hasattr(type(getattr(torch.Tensor, n, None)), "__set__"))
