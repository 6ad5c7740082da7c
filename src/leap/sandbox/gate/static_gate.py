"""The static gate: reject a candidate's source on its AST before anything of it runs.

``check_source(source, backend, allowed_ops)`` returns a `GateResult`. Rules (DESIGN.md §3):

* ``class ModelNew`` exists and does not inherit from ``Model``; the candidate never names ``Model``
  outside a class of that name (no passthrough to the reference).
* A custom kernel for the claimed backend is launched from ModelNew's forward path: a ``@triton.jit``
  function launched as ``kernel[grid](...)``, a ``load_inline`` extension with CUDA sources whose function
  is called, or a cupy ``RawKernel``/``RawModule``/cuda.core ``Program`` kernel that is launched.
* No PyTorch compute (``torch.*``, ``torch.nn.functional``, tensor methods or operators on tensors, nn
  layers) in the forward data path except ops the task allows; allocation, views, shape, dtype and device
  handling are always allowed (see `leap.sandbox.gate.static_dataflow`).
* No try/except, no imports outside a small allowlist (threads, processes, ctypes, gc, inspect,
  importlib, sockets, time, ... are not on it), no exec/eval/compile/open/``__import__``/globals/id, no
  dunder introspection, no tensor subclasses or special dunder methods, no stream or graph creation, no
  RNG or global-flag changes, no assignments to attributes of imported modules, no file or network
  access, no reading of the environment; CUDA C++ strings are scanned for the same things.

``reason`` (shown to the policy) says what is wrong in general words, then names the rule and quotes the
offending line, so a policy can learn the rule; ``findings`` carry rule, line and column as data.
``rules="kernelbench"`` relaxes the PyTorch-compute rule only (KernelBench allows partial PyTorch in
ModelNew) and reports LEAP's strict verdict beside it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace

from leap.sandbox.gate import static_gate_tables as T
from leap.sandbox.gate.static_dataflow import DataPath, ModuleIndex
from leap.sandbox.judge.feedback import gate_feedback

REASON_FORMAT = "The solution must be valid Python that defines class ModelNew(nn.Module)."
REASON_NO_KERNEL = ("The solution must compute its result with a custom kernel for the requested backend, "
                    "launched from ModelNew.forward.")
REASON_TORCH = ("ModelNew.forward must compute its result with custom kernels: PyTorch compute operations "
                "are not allowed there (allocation, views and shape handling are).")
REASON_POLICY = ("The solution uses a construct the sandbox does not allow (exception fallbacks, threads or "
                 "processes, introspection, I/O, or changes to library or global state).")
MAX_AUTOTUNE_CONFIGS = 64
RULES = ("leap", "kernelbench")
_REASONS = {"format": REASON_FORMAT, "syntax": "The solution is not valid Python.", "no_kernel": REASON_NO_KERNEL,
            "torch_compute": REASON_TORCH}


@dataclass(frozen=True)
class Finding:
    """One rule broken at one place of the candidate's source (1-based line, 0-based column)."""

    rule: str
    line: int
    col: int
    message: str


@dataclass(frozen=True)
class GateResult:
    """Outcome of the static gate. ``status`` maps straight onto `Verdict.status`.

    ``reason`` is the feedback for the policy: what is wrong in general words, then the rule and the
    offending line (`leap.sandbox.judge.feedback.gate_feedback`). ``findings`` hold the same as data (rule,
    line, column). ``strict`` is, under rules "kernelbench", LEAP's own stricter verdict
    (``"ok"`` or ``"rejected: <rule> (line N)"``); empty under rules "leap"."""

    ok: bool
    reason: str = ""
    detail: str = ""
    rule: str = ""
    status: str = "ok"
    backends: tuple[str, ...] = field(default_factory=tuple)
    findings: tuple[Finding, ...] = ()
    rules: str = "leap"
    strict: str = ""

    @property
    def reason_generic(self) -> str:
        return self.reason

    @property
    def line(self) -> int | None:
        return self.findings[0].line if self.findings else None

    @property
    def col(self) -> int | None:
        return self.findings[0].col if self.findings else None


def check_source(source: str, backend: str | None = None, allowed_ops: list[str] | tuple[str, ...] = (),
                 rules: str = "leap") -> GateResult:
    """Check a candidate's source; ``backend`` None or "auto" accepts a kernel of any backend.

    ``rules`` "leap" (default) is LEAP's strict gate; "kernelbench" follows KernelBench's rules: PyTorch
    compute may stay in ModelNew as long as a custom kernel is launched (every safety rule still holds),
    and LEAP's strict verdict is reported in ``strict``."""
    if rules not in RULES:
        raise ValueError(f"unknown gate rules {rules!r} (one of {', '.join(RULES)})")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        f = Finding("syntax", exc.lineno or 0, max((exc.offset or 1) - 1, 0), f"syntax error: {exc.msg}")
        return _fail(source, [f], status="format_error", rules=rules)
    except (ValueError, RecursionError) as exc:
        return _fail(source, [Finding("format", 0, 0, f"unparsable source: {exc}")], status="format_error",
                     rules=rules)
    try:
        g = _check_tree(tree, source, backend, allowed_ops, "leap")
        if rules == "kernelbench" and not g.ok and g.rule in ("torch_compute",):
            relaxed = _check_tree(tree, source, backend, allowed_ops, "kernelbench")
            return replace(relaxed, rules=rules, strict=_strict_word(g))
        return replace(g, rules=rules, strict=_strict_word(g) if rules == "kernelbench" else "")
    except RecursionError:
        return _fail(source, [Finding("too_deep", 0, 0, "source nests too deeply to analyse")], rules=rules)
    except Exception as exc:  # noqa: BLE001 - an analysis failure must never let a candidate through
        return _fail(source, [Finding("gate_error", 0, 0, f"static analysis failed: {type(exc).__name__}: {exc}")],
                     rules=rules)


def _strict_word(g: GateResult) -> str:
    if g.ok:
        return "ok"
    return f"rejected: {g.rule}" + (f" (line {g.line})" if g.line else "")


def _check_tree(tree: ast.Module, source: str, backend: str | None, allowed_ops, rules: str) -> GateResult:
    tree = _ConstGetattr().visit(tree)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    if "ModelNew" not in classes:
        return _fail(source, [Finding("format", 0, 0, "no top-level class ModelNew")], status="format_error")
    index = ModuleIndex(tree)
    problems = _PolicyVisitor(index).run(tree)
    problems += _model_problems(tree, classes)
    problems += _cpp_problems(tree, allowed_ops)
    if rules == "kernelbench":
        problems = [p for p in problems if p.rule != "torch_compute"]
    if problems:
        return _fail(source, sorted(problems, key=lambda p: (p.line, p.col)))
    path = DataPath(index, allowed_ops)
    path.run()
    if path.violations and rules != "kernelbench":
        v = [Finding("torch_compute", ln, col, msg) for ln, col, msg in sorted(set(path.violations))]
        return _fail(source, v)
    found = tuple(sorted(path.launched))
    want = None if backend in (None, "", "auto") else backend
    if (want is None and not found) or (want is not None and want not in found):
        what = f"no {want} kernel" if want else "no custom kernel"
        seen = f" (kernels found: {', '.join(found)})" if found else ""
        f = Finding("no_kernel", classes["ModelNew"].lineno, classes["ModelNew"].col_offset,
                    f"{what} launched from ModelNew's forward path{seen}")
        return replace(_fail(source, [f]), backends=found)
    return GateResult(True, "", "", "", "ok", found)


def _fail(source: str, findings: list[Finding], status: str = "rejected", rules: str = "leap") -> GateResult:
    first = findings[0]
    reason = gate_feedback(_REASONS.get(first.rule, REASON_POLICY), first.rule, first.line, first.col,
                           first.message, source)
    detail = f"[{first.rule}] " + "; ".join(f"line {f.line}: {f.message}" for f in findings[:4])
    return GateResult(False, reason, detail, first.rule, status, findings=tuple(findings[:8]), rules=rules)


class _ConstGetattr(ast.NodeTransformer):
    """Rewrite ``getattr(obj, "name")`` as ``obj.name`` so one set of rules sees both spellings."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if (isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) == 2
                and not node.keywords and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str) and node.args[1].value.isidentifier()):
            return ast.copy_location(ast.Attribute(node.args[0], node.args[1].value, ast.Load()), node)
        return node


def _model_problems(tree: ast.Module, classes: dict[str, ast.ClassDef]) -> list[Finding]:
    """ModelNew must not inherit from Model (directly or through a class of the file) nor name it."""
    out: list[Finding] = []
    model_like = {"Model"}
    changed = True
    while changed:
        changed = False
        for name, cls in classes.items():
            if name not in model_like and any(_base_name(b) in model_like for b in cls.bases):
                model_like.add(name)
                changed = True
    if "ModelNew" in model_like:
        m = classes["ModelNew"]
        out.append(Finding("inherits_model", m.lineno, m.col_offset, "ModelNew inherits from the reference Model"))
    own_model = classes.get("Model")
    inside = set()
    if own_model is not None:
        inside = {id(n) for n in ast.walk(own_model)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "Model" and id(node) not in inside:
            out.append(Finding("uses_model", node.lineno, node.col_offset, "the candidate refers to the reference Model"))
            break
    return out


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _op_allowed(name: str, allowed_ops) -> bool:
    name = name.lower()
    for op in allowed_ops:
        op = op.lower()
        if name == op or name in T.OP_SYNONYMS.get(op, ()):
            return True
    return False


def _cpp_problems(tree: ast.Module, allowed_ops) -> list[Finding]:
    """Scan string constants that look like C/C++ (CUDA sources) for forbidden calls and ATen compute."""
    out: list[Finding] = []
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in docstrings:
            continue
        text = node.value
        if not (any(k in text for k in T.CPP_MARKERS) or (";" in text and "(" in text)):
            continue
        # comments removed, line breaks kept (so a match's line is the candidate's line)
        code = re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)

        def at(m: re.Match, code=code, node=node) -> tuple[int, int]:
            before = code[:m.start()]
            line = node.lineno + before.count("\n")
            return line, (m.start() - before.rfind("\n") - 1) if "\n" in before else node.col_offset

        for pattern, what in T.CPP_FORBIDDEN_PATTERNS:
            m = re.search(pattern, code)
            if m:
                out.append(Finding("cpp_forbidden", *at(m), f"{what}: {m.group(0).strip()!r}"))
        for m in re.finditer(T.CPP_TORCH_CALL, code):
            name = m.group(1)
            if name not in T.CPP_ALLOWED_TORCH_CALLS and not _op_allowed(name, allowed_ops):
                out.append(Finding("torch_compute", *at(m), f"ATen compute call in C++ source: {m.group(0)!r}"))
                break
        for m in re.finditer(T.CPP_TENSOR_METHOD, code):
            if not _op_allowed(m.group(1).rstrip("_"), allowed_ops):
                out.append(Finding("torch_compute", *at(m), f"tensor compute method in C++ source: {m.group(0)!r}"))
                break
    return out


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
        if q == p or q.startswith(p + "."):
            return f"{q} is not allowed"
    parts = q.split(".")
    if any(p.startswith("_") and not (p in T.ALLOWED_DUNDER_ATTRS or p == "__future__") for p in parts[1:]):
        return f"private name {q}"
    if root == "torch" and len(parts) == 2 and parts[1].startswith("set_"):
        return f"{q} changes global state"
    return None


class _PolicyVisitor(ast.NodeVisitor):
    """Whole-file rules that do not depend on the data path."""

    def __init__(self, index: ModuleIndex):
        self.index = index
        self.problems: list[Finding] = []
        self.parents: dict[int, ast.AST] = {}

    def run(self, tree: ast.Module) -> list[Finding]:
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[id(child)] = parent
        self.visit(tree)
        return self.problems

    def add(self, node: ast.AST, rule: str, msg: str) -> None:
        self.problems.append(Finding(rule, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), msg))

    # --- statements -------------------------------------------------------------------------------
    def visit_Try(self, node: ast.AST) -> None:
        self.add(node, "try_except", "try/except is not allowed")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._check_binding(node, a.asname or a.name.split(".")[0])
            why = forbidden_qualname(a.name)
            if why:
                self.add(node, "import", f"import {a.name}: {why}")

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
        for d in node.decorator_list:
            if isinstance(d, ast.Call) and self.index.qualname(d.func) == "triton.autotune":
                n = _autotune_size(d)
                if n is not None and n > MAX_AUTOTUNE_CONFIGS:
                    self.add(node, "autotune", f"autotune over {n} configs (at most {MAX_AUTOTUNE_CONFIGS})")
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

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

    visit_AnnAssign = visit_AugAssign

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            self._check_store(t, node)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.generic_visit(node)

    def visit_Await(self, node: ast.AST) -> None:
        self.add(node, "async", "await is not allowed")
        self.generic_visit(node)

    # --- expressions ------------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if node.id in T.FORBIDDEN_BUILTINS and node.id not in self.index.defined_names:
            self.add(node, "builtin", f"{node.id} is not allowed")
        if isinstance(node.ctx, ast.Store | ast.Del):
            self._check_binding(node, node.id)
        elif node.id in T.DYNAMIC_BUILTINS:
            parent = self.parents.get(id(node))
            if not (isinstance(parent, ast.Call) and parent.func is node):
                self.add(node, "dynamic_attr", f"the builtin {node.id} may only be called directly, not used as a value")
        q = self.index.imports.get(node.id)
        if q is not None and isinstance(node.ctx, ast.Load):
            self._check_qualname(node, q)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if _is_dunder(node.attr) and node.attr not in T.ALLOWED_DUNDER_ATTRS:
            self.add(node, "dunder", f"attribute {node.attr} is not allowed")
        if node.attr == "__init__" and not self._init_base_ok(node.value):
            self.add(node, "dunder", "calling __init__ other than through super() or a class is not allowed")
        if node.attr in T.FORBIDDEN_METHODS:
            self.add(node, "method", f".{node.attr} is not allowed")
        parent = self.parents.get(id(node))
        if not (isinstance(parent, ast.Attribute) and parent.value is node):
            q = self.index.qualname(node)
            if q is not None:
                self._check_qualname(node, q)
                return  # the chain's inner names are part of this qualified name
        self.generic_visit(node)

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
                if f.id in ("setattr", "delattr") and node.args and self.index.qualname(node.args[0]):
                    self.add(node, "monkey_patch", f"{f.id} on an imported module or class")
            if f.id == "type" and len(node.args) == 3:
                self.add(node, "dynamic_class", "type() with three arguments is not allowed")
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


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")

