"""Identity of a task for deduplication and split hygiene: a normalised-source hash and an operator
signature read from ``Model.forward``'s AST (so hand-written and generated tasks compare alike)."""

from __future__ import annotations

import ast
import hashlib
from functools import lru_cache

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow",
           ast.MatMult: "matmul", ast.FloorDiv: "floordiv", ast.Mod: "mod"}


@lru_cache(maxsize=4096)
def normalized_source_hash(source: str) -> str:
    """Hash of the source with comments, docstrings, formatting and metadata (``LEAP_*``) removed."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return hashlib.sha256(source.encode()).hexdigest()[:16]
    tree.body = [n for n in tree.body if not _is_docstring(n) and not _is_meta(n)]
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.body and _is_docstring(node.body[0]):
            node.body = node.body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree, annotate_fields=False).encode()).hexdigest()[:16]


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_meta(node: ast.AST) -> bool:
    return (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.startswith("LEAP_"))


def _const(node: ast.AST):
    """The value of a literal constant (negative numbers included), else a sentinel."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    return _NOT_CONST


_NOT_CONST = object()


class _Calls(ast.NodeVisitor):
    """Operator tokens of an expression tree in evaluation order (arguments before the call)."""

    def __init__(self, modules: dict[str, str], constants: bool):
        self.tokens: list[str] = []
        self.modules, self.constants = modules, constants

    def visit_Call(self, node: ast.Call) -> None:
        for a in node.args:
            self.visit(a)
        for k in node.keywords:
            self.visit(k.value)
        f = node.func
        if isinstance(f, ast.Attribute):
            self.visit(f.value)
            name = f.attr
            if isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr in self.modules:
                name = self.modules[f.attr]
        elif isinstance(f, ast.Name):
            name = f.id
        else:
            self.generic_visit(node)
            return
        if name in ("float", "to", "contiguous", "view", "reshape", "chunk", "shape"):
            return  # casts and views are not operators
        if self.constants:
            consts = [repr(_const(a)) for a in node.args if _const(a) is not _NOT_CONST]
            consts += [f"{k.arg}={_const(k.value)!r}" for k in node.keywords if _const(k.value) is not _NOT_CONST]
            name += f"({','.join(consts)})" if consts else ""
        self.tokens.append(name.lower())

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self.visit(node.left)
        self.visit(node.right)
        tok = _BINOPS.get(type(node.op), type(node.op).__name__.lower())
        if self.constants and _const(node.right) is not _NOT_CONST:
            tok += f"({_const(node.right)!r})"
        self.tokens.append(tok)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        self.visit(node.operand)
        if isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
            self.tokens.append("neg")

    def visit_Compare(self, node: ast.Compare) -> None:
        self.generic_visit(node)
        self.tokens.append("compare")


def _module_types(init: ast.FunctionDef | None) -> dict[str, str]:
    """``self.name = nn.Linear(...)`` (possibly ``.to(...)``) -> {"name": "linear"}."""
    found: dict[str, str] = {}
    if init is None:
        return found
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t, v = node.targets[0], node.value
            while isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "to":
                v = v.func.value
            if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                    and isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                    and v.func.attr[:1].isupper()):
                found[t.attr] = v.func.attr.lower()
    return found


@lru_cache(maxsize=8192)
def op_signature(source: str, *, constants: bool = True, dtype: str | None = None) -> str:
    """Operator sequence of ``Model.forward`` ("gelu-add-sum"), with constants unless told otherwise,
    prefixed by ``dtype:`` when given. Empty when the source has no parsable ``Model.forward``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    model = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model"), None)
    if model is None:
        return ""
    funcs = {n.name: n for n in model.body if isinstance(n, ast.FunctionDef)}
    if "forward" not in funcs:
        return ""
    calls = _Calls(_module_types(funcs.get("__init__")), constants)
    for stmt in funcs["forward"].body:
        calls.visit(stmt)
    sig = "-".join(calls.tokens)
    return f"{dtype}:{sig}" if dtype else sig


class Deduper:
    """Remembers seen signatures and source hashes; ``blocked`` ones (the eval split) are never admitted."""

    def __init__(self, blocked_sources=()):
        self.seen_sigs: set[str] = set()
        self.seen_hashes: set[str] = set()
        self.blocked_ops: set[str] = set()
        self.blocked_hashes: set[str] = set()
        for src in blocked_sources:
            self.blocked_ops.add(op_signature(src, constants=False))
            self.blocked_hashes.add(normalized_source_hash(src))
        self.blocked_ops.discard("")

    def check(self, source: str, dtype: str) -> str | None:
        """Why the source may not be admitted ("duplicate", "eval overlap"), or None."""
        h = normalized_source_hash(source)
        if h in self.blocked_hashes or op_signature(source, constants=False) in self.blocked_ops:
            return "eval overlap"
        if h in self.seen_hashes or op_signature(source, dtype=dtype) in self.seen_sigs:
            return "duplicate"
        return None

    def add(self, source: str, dtype: str) -> None:
        self.seen_hashes.add(normalized_source_hash(source))
        self.seen_sigs.add(op_signature(source, dtype=dtype))
