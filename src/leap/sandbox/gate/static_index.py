"""The module index of the static gate: a candidate's imports, aliases, functions, classes and kernels."""

from __future__ import annotations

import ast

from leap.sandbox.gate import static_scopes as S

JIT_DECORATORS = ("triton.jit", "triton.autotune", "triton.heuristics", "triton.language.jit")


class ModuleIndex:
    """Imports, aliases, functions, classes and Triton kernels (module-level and in classes) of a
    candidate module."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.imports: dict[str, str] = {}
        self.aliases: dict[str, str] = {}
        self.functions: dict[str, ast.FunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.defined_names: set[str] = set()
        # module-level `if __name__ == "__main__":` blocks: never run under the judge, unless __name__ is bound
        self.unrun_main_guards: frozenset[int] = frozenset() if S.binds(tree, "__name__") else frozenset(
            id(n) for n in tree.body if isinstance(n, ast.If) and S.main_guard(n.test))
        self.in_main_guards = frozenset(id(d) for n in tree.body if id(n) in self.unrun_main_guards
                                        for s in n.body for d in ast.walk(s))  # nodes of those blocks' bodies
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
        # names every run of the module binds at its top level (not in a branch, not deleted): they shadow a
        # builtin everywhere; a binding that may not run (`if False: open = None`, `open: object`) does not
        self.module_names: set[str] = set()
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, ast.AugAssign | ast.For) or (
                    isinstance(node, ast.AnnAssign) and node.value is not None) else []
            for t in targets:
                self.module_names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.module_names.add(node.name)
        self.module_names -= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del)}
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
        self.jit: set[str] = {name for name, fn in self.functions.items() if self.jit_decorated(fn)}
        for node in tree.body:  # k = triton.jit(fn)
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and self.qualname(node.value.func) in JIT_DECORATORS):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.jit.add(t.id)
                        self.aliases.pop(t.id, None)
        # kernels defined inside a function (a factory that returns one), by name, where the name is free
        top = {id(f) for f in self.functions.values()} | {id(st) for c in self.classes.values() for st in c.body}
        self.nested_jit: dict[str, ast.FunctionDef] = {}
        for node in ast.walk(tree):
            if (isinstance(node, ast.FunctionDef) and id(node) not in top and node.name not in self.functions
                    and node.name not in self.jit and self.jit_decorated(node)):
                self.nested_jit.setdefault(node.name, node)
        # ``@triton.constexpr_function``: host Python a kernel calls at compile time on constexprs
        self.constexpr_fns: dict[str, ast.FunctionDef] = {
            name: fn for name, fn in self.functions.items() if isinstance(fn, ast.FunctionDef) and any(
                self.qualname(d) == "triton.constexpr_function" for d in fn.decorator_list)}
        self.jit_methods: set[tuple[str, str]] = set()  # (class, name): a @staticmethod @triton.jit kernel
        for cname, cls in self.classes.items():
            for stmt in cls.body:
                if isinstance(stmt, ast.FunctionDef) and self.jit_decorated(stmt):
                    self.jit_methods.add((cname, stmt.name))
                elif (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                      and self.qualname(stmt.value.func) in JIT_DECORATORS):
                    self.jit_methods.update((cname, t.id) for t in stmt.targets if isinstance(t, ast.Name))

    def jit_decorated(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """``fn`` carries ``@triton.jit`` (or autotune/heuristics), called or not."""
        return any(self.qualname(d.func if isinstance(d, ast.Call) else d) in JIT_DECORATORS
                   for d in fn.decorator_list)

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


def own_attrs(tree: ast.Module) -> frozenset[str]:
    """Names the candidate gives its own methods and attributes (``def load_table``, ``self.loaded = ...``):
    ``obj.loaded`` is then not taken for a library's save*/load* file I/O method."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for s in node.body:
                if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
                    out.add(s.name)
                for t in (s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign)
                          else []):
                    if isinstance(t, ast.Name):
                        out.add(t.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
    return frozenset(out)


def str_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level names bound exactly once in the whole source, to a string literal (``ERR = "..."``)."""
    stores: dict[str, int] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, ast.arg | ast.alias | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = n.arg if isinstance(n, ast.arg) else (n.asname or n.name) if isinstance(n, ast.alias) else n.name
            stores[name] = stores.get(name, 0) + 2  # a parameter, import or def of that name: not the constant
    return {t.id: s.value.value for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
            for t in s.targets if isinstance(t, ast.Name) and stores.get(t.id) == 1
            and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)}


def kernel_defs(ix: ModuleIndex) -> list[ast.FunctionDef]:
    """The ``@triton.jit`` functions (module level and in classes): their pointers ``load`` and ``store``."""
    out = [f for n, f in ix.functions.items() if n in ix.jit]
    for cname, cls in ix.classes.items():
        out += [s for s in cls.body if isinstance(s, ast.FunctionDef) and (cname, s.name) in ix.jit_methods]
    return out


def decorators_by_call(tree: ast.Module) -> ast.Module:
    """``k = triton.heuristics(h)(triton.jit(fn, **opts))`` (Triton's decorators applied by calls, the style of
    Triton's own tutorials) read as ``@triton.heuristics(h) @triton.jit(**opts) def k``, so the rules for
    decorated kernels apply. Only when ``fn`` is a plain module-level ``def`` named nowhere else and ``k`` is
    bound nowhere else: then the file runs as the rewritten one reads."""
    ix = ModuleIndex(tree)
    defs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef) and not s.decorator_list}
    for stmt in list(tree.body):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        decorators, inner = [], stmt.value
        while isinstance(inner, ast.Call):
            deco = _applied_decorator(ix, inner)
            if deco is None:
                break
            decorators.append(deco)
            inner = inner.args[0]
        k, fn = stmt.targets[0].id, getattr(inner, "id", None)
        bindings = sum(S.binding_mention(n, k) for n in ast.walk(tree))
        if not decorators or fn not in defs or _mentions(tree, fn) != 2 or bindings != 1 or k in defs:
            continue
        node = defs[fn]
        node.name, node.decorator_list = k, decorators
        tree.body.remove(stmt)
    return tree


def _applied_decorator(ix: ModuleIndex, call: ast.Call) -> ast.expr | None:
    """The decorator a call applies to its single positional argument: ``triton.jit(fn, **opts)`` ->
    ``triton.jit(**opts)``; ``triton.autotune(...)(x)`` -> ``triton.autotune(...)``; else None."""
    if len(call.args) != 1 or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if ix.qualname(call.func) in JIT_DECORATORS:
        if not call.keywords:
            return call.func
        return ast.copy_location(ast.Call(func=call.func, args=[], keywords=call.keywords), call)
    if (isinstance(call.func, ast.Call) and not call.keywords and ix.qualname(call.func.func) in JIT_DECORATORS
            and ix.qualname(call.func.func) != "triton.jit"):
        return call.func
    return None


def _mentions(tree: ast.AST, name: str) -> int:
    """How many nodes name ``name`` (a read, a binding, a def, a parameter, an alias, ...)."""
    count = 0
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            count += n.id == name
        else:
            count += sum(v == name or isinstance(v, list) and name in v for _, v in ast.iter_fields(n))
    return count


def getattrs_spelled_out(tree: ast.Module) -> ast.Module:
    """Rewrite ``getattr(obj, "name")`` as ``obj.name`` so one set of rules sees both spellings; with a
    constant default, ``getattr(obj, "name", 4)`` as ``obj.name or 4`` (either value), and as ``4`` alone for
    ``self`` in a method when no code of the module can store ``name`` (``getattr(self, "block", 128)``)."""
    return _Getattrs(tree).visit(tree)


class _Getattrs(ast.NodeTransformer):
    def __init__(self, tree: ast.Module) -> None:
        self.named = own_attrs(tree) | {a.value for n in ast.walk(tree) if isinstance(n, ast.Call)
                                        and S.callee_name(n) != "getattr" for a in n.args
                                        if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        self.dynamic = _dynamic_attrs(tree)
        self.plain = _plain_classes(tree)
        self.selves: list[str | None] = [None]

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        for s in node.body:
            if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
                me = s.args.args[0].arg if s.args.args else None
                bound = node.name in self.plain and not any(
                    isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in s.decorator_list)
                rebound = any(isinstance(n, ast.Name) and n.id == me and not isinstance(n.ctx, ast.Load)
                              for n in ast.walk(s))
                self.selves.append(me if bound and not rebound else None)
                self.generic_visit(s)  # the method's own parameters do not shadow its ``self``
                self.selves.pop()
            else:
                self.visit(s)
        return node

    def visit_FunctionDef(self, node):  # a nested function's parameter may shadow the method's ``self``
        me = self.selves[-1]
        shadows = me is not None and me in {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        self.selves.append(None if shadows else me)
        self.generic_visit(node)
        self.selves.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if (isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) in (2, 3)
                and not node.keywords and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str) and node.args[1].value.isidentifier()
                and (len(node.args) == 2 or isinstance(node.args[2], ast.Constant))):
            name = node.args[1].value
            attr = ast.copy_location(ast.Attribute(node.args[0], name, ast.Load()), node)
            if len(node.args) == 2:
                return attr
            obj = node.args[0]
            if (isinstance(obj, ast.Name) and obj.id == self.selves[-1] and not self.dynamic
                    and name not in self.named and name not in _module_attrs()):
                return node.args[2]
            return ast.copy_location(ast.BoolOp(ast.Or(), [attr, node.args[2]]), node)
        return node


_SETTERS = ("setattr", "register_buffer", "register_parameter", "add_module", "register_module")
_MODULE_BASES = ("nn.Module", "torch.nn.Module", "Module", "object")


def _dynamic_attrs(tree: ast.Module) -> bool:
    """Whether the module may store an attribute under a name it does not spell out (a setter called with a
    computed name, its own ``__getattr__``)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name in ("__getattr__", "__getattribute__"):
            return True
        if isinstance(n, ast.Call) and S.callee_name(n) in _SETTERS:
            name = n.args[1:2] if S.callee_name(n) == "setattr" else n.args[:1]
            if not (name and isinstance(name[0], ast.Constant) and isinstance(name[0].value, str)):
                return True
    return False


def _plain_classes(tree: ast.Module) -> set[str]:
    """The module's top-level classes whose bases are ``nn.Module`` or such classes of its own (so an attribute
    no code stores is not there)."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    plain: set[str] = set()
    while True:
        more = {name for name, c in classes.items() if name not in plain and not c.keywords and all(
            ast.unparse(b) in _MODULE_BASES or (isinstance(b, ast.Name) and b.id in plain) for b in c.bases)}
        if not more:
            return plain
        plain |= more


def _module_attrs() -> frozenset[str]:
    """What an ``nn.Module`` has without the candidate storing it (its methods, ``training``, ...)."""
    if not _MODULE_ATTRS:
        import torch

        _MODULE_ATTRS.append(frozenset(dir(torch.nn.Module)) | frozenset(vars(torch.nn.Module())))
    return _MODULE_ATTRS[0]


_MODULE_ATTRS: list[frozenset[str]] = []
