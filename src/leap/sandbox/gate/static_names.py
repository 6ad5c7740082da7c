"""Names the candidate reads but never binds (rule ``unbound_name``).

A global name that the file neither assigns, imports nor defines is not an error to the gate's data-path
analysis (it is a value of unknown kind), but at run time it is whatever someone else put into the module's
globals: Triton's CPU interpreter, for one, copies its own module globals (``inspect``, ``np``, ...) into the
candidate's module on the first launch, so an unbound ``inspect`` would reach frames of the harness. Honest
Python code never reads such a name (it would be a ``NameError``), so every read of a global name must find a
binding in the file (module level, or ``global`` + assignment in a function) or a builtin. Scopes follow
Python's own rules through `symtable`.
"""

from __future__ import annotations

import ast
import builtins
import symtable

from leap.sandbox.gate.static_policy import Finding

# module attributes Python itself sets
_MODULE_DUNDERS = frozenset({"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__",
                             "__builtins__", "__annotations__", "__qualname__", "__module__"})
# the task's input functions a candidate may paste without the task's size constants: the judge never calls them
_NEVER_CALLED = frozenset({"get_inputs", "get_init_inputs", "get_small_inputs"})


def _tables(table: symtable.SymbolTable):
    yield table
    for child in table.get_children():
        yield from _tables(child)


def unbound_problems(tree: ast.Module, source: str) -> list[Finding]:
    """One finding per global name read without a binding in the file (at its first read)."""
    try:
        top = symtable.symtable(source, "<candidate>", "exec")
    except (SyntaxError, ValueError):
        return []  # the parser's own verdict comes first
    tables = list(_tables(top))
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    bound |= {s.get_name() for t in tables for s in t.get_symbols() if s.is_declared_global() and s.is_assigned()}
    known = bound | set(dir(builtins)) | _MODULE_DUNDERS
    pasted = {id(t) for c in top.get_children() if c.get_name() in _NEVER_CALLED and c.get_type() == "function"
              for t in _tables(c)}
    read: set[str] = set()
    for t in tables:
        if id(t) in pasted:
            continue
        for s in t.get_symbols():
            if s.is_referenced() and (t is top or s.is_global()) and s.get_name() not in known:
                read.add(s.get_name())
    if not read:
        return []
    skip = {id(n) for f in tree.body if isinstance(f, ast.FunctionDef) and f.name in _NEVER_CALLED
            for n in ast.walk(f)}
    first: dict[str, ast.Name] = {}
    for node in _global_reads(tree, read):
        if id(node) not in skip and (node.id not in first or _at(node) < _at(first[node.id])):
            first[node.id] = node
    return [Finding("unbound_name", n.lineno, n.col_offset,
                    f"{name} is never defined or imported in the file (at run time it would be whatever "
                    "something else put into the module's globals)")
            for name, n in sorted(first.items(), key=lambda kv: _at(kv[1]))]


def _at(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _own_nodes(scope: ast.AST):
    """The nodes of ``scope`` itself, not those inside the scopes nested in it (whose names are their own)."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (*_FUNCS, *_COMPS, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def _locals(scope: ast.AST) -> set[str]:
    """The names a function, lambda, comprehension or class body binds for itself (parameters, stores,
    imports, nested definitions), less those it declares ``global``."""
    names: set[str] = set()
    if isinstance(scope, _FUNCS):
        a = scope.args
        names |= {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None}
    declared: set[str] = set()
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, (*_FUNCS[:2], ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(al.asname or al.name).split(".")[0] for al in node.names}
        elif isinstance(node, ast.Global):
            declared |= set(node.names)
    return names - declared


def _global_reads(tree: ast.Module, names: set[str]):
    """Loads of ``names`` that resolve to the module's globals: not a local of an enclosing function,
    lambda or comprehension (nor of the class body a read sits directly in)."""
    def visit(node: ast.AST, enclosing: tuple[set[str], ...], cls: set[str] | None):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and child.id in names:
                if not any(child.id in s for s in enclosing) and not (cls and child.id in cls):
                    yield child
            if isinstance(child, (*_FUNCS, *_COMPS)):
                yield from visit(child, (*enclosing, _locals(child)), None)
            elif isinstance(child, ast.ClassDef):
                yield from visit(child, enclosing, _locals(child))
            else:
                yield from visit(child, enclosing, cls)

    yield from visit(tree, (), None)
