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
from leap.sandbox.gate.cpp_includes import include_problem
from leap.sandbox.gate.static_bindings import rebinding_problems
from leap.sandbox.gate.static_dataflow import DataPath, ModuleIndex, init_code
from leap.sandbox.gate.static_deferred import deferred_problems
from leap.sandbox.gate.static_index import decorators_by_call, getattrs_spelled_out
from leap.sandbox.gate.static_names import unbound_problems
from leap.sandbox.gate.static_policy import Finding, PolicyVisitor
from leap.sandbox.gate.static_scopes import plain_annotation
from leap.sandbox.judge.feedback import gate_feedback

REASON_FORMAT = "The solution must be valid Python that defines class ModelNew(nn.Module)."
REASON_NO_KERNEL = ("The solution must compute its result with a custom kernel for the requested backend, "
                    "launched from ModelNew.forward.")
REASON_TORCH = ("ModelNew.forward must compute its result with custom kernels: PyTorch compute operations "
                "are not allowed there (allocation, views and shape handling are).")
REASON_POLICY = ("The solution uses a construct the sandbox does not allow (exception fallbacks, threads or "
                 "processes, introspection, I/O, or changes to library or global state).")
REASON_IMPORT = ("The solution must not compute at import time: module-level code may define kernels, constants "
                 "and tables of settings, not run PyTorch compute on tensors.")
REASON_JIT = ("A @triton.jit kernel may use only Triton (triton, triton.language and its extras), math, Python's "
              "simple builtins, its own arguments, other kernels and module constants.")
REASON_KERNEL_ARGS = ("A Triton kernel takes tensors, numbers and kernels; a tl.constexpr argument must be a Python "
                      "constant (number, string, dtype) or a kernel.")
RULES = ("leap", "kernelbench")
_REASONS = {"format": REASON_FORMAT, "syntax": "The solution is not valid Python.", "no_kernel": REASON_NO_KERNEL,
            "torch_compute": REASON_TORCH, "import_time_compute": REASON_IMPORT, "jit_body": REASON_JIT,
            "kernel_args": REASON_KERNEL_ARGS}
# The rules KernelBench's own rules relax (PyTorch compute may stay in ModelNew there).
_KB_RELAXED = ("torch_compute", "import_time_compute")


@dataclass(frozen=True)
class GateResult:
    """Outcome of the static gate. ``status`` maps straight onto `Verdict.status`.

    ``reason`` is the feedback for the policy: what is wrong in general words, then the rule and the
    offending line (`leap.sandbox.judge.feedback.gate_feedback`). ``findings`` hold the same as data (rule,
    line, column). ``strict`` is, under rules "kernelbench", LEAP's own stricter verdict
    (``"ok"`` or ``"rejected: <rule> (line N)"``); empty under rules "leap". ``init_code``: the functions the
    analysis let compute as init code, which the child refuses to see start during forward."""

    ok: bool
    reason: str = ""
    detail: str = ""
    rule: str = ""
    status: str = "ok"
    backends: tuple[str, ...] = field(default_factory=tuple)
    findings: tuple[Finding, ...] = ()
    rules: str = "leap"
    strict: str = ""
    init_code: tuple[tuple[int, str], ...] = ()  # (first line, qualname) of init code (`static_dataflow.init_code`)

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
    cookie = _coding_problem(source)
    if cookie is not None:
        return _fail(source, [cookie], rules=rules)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        f = Finding("syntax", exc.lineno or 0, max((exc.offset or 1) - 1, 0), f"syntax error: {exc.msg}")
        return _fail(source, [f], status="format_error", rules=rules)
    except (ValueError, RecursionError, MemoryError) as exc:
        return _fail(source, [Finding("format", 0, 0, f"unparsable source: {type(exc).__name__} {exc}")], status="format_error",
                     rules=rules)
    try:
        g = _check_tree(tree, source, backend, allowed_ops, "leap")
        if rules == "kernelbench" and not g.ok and g.rule in _KB_RELAXED:
            relaxed = _check_tree(tree, source, backend, allowed_ops, "kernelbench")
            return replace(relaxed, rules=rules, strict=_strict_word(g))
        return replace(g, rules=rules, strict=_strict_word(g) if rules == "kernelbench" else "")
    except RecursionError:
        return _fail(source, [Finding("too_deep", 0, 0, "source nests too deeply to analyse")], rules=rules)
    except Exception as exc:  # noqa: BLE001 - an analysis failure must never let a candidate through
        return _fail(source, [Finding("gate_error", 0, 0, f"static analysis failed: {type(exc).__name__}: {exc}")],
                     rules=rules)


def _coding_problem(source: str) -> Finding | None:
    """A PEP 263 coding declaration under which Python's file loader would read other text than the gate
    (the harness imports the candidate from a UTF-8 file; the gate parses the string): utf-7 or
    unicode_escape turn bytes inside a comment into live lines."""
    import io
    import tokenize

    data = source.encode("utf-8", "surrogatepass")
    try:
        declared, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        same = data.decode(declared) in (source, source.removeprefix("\ufeff"))
    except (SyntaxError, LookupError, UnicodeDecodeError, ValueError) as exc:
        return Finding("coding", 1, 0, f"coding declaration Python cannot apply here: {str(exc)[:80]}")
    if not same:
        return Finding("coding", 1, 0, f"coding declaration {declared!r}: Python would read other text than the "
                       "source (declare utf-8 or nothing)")
    return None


def _strict_word(g: GateResult) -> str:
    if g.ok:
        return "ok"
    return f"rejected: {g.rule}" + (f" (line {g.line})" if g.line else "")


def _check_tree(tree: ast.Module, source: str, backend: str | None, allowed_ops, rules: str) -> GateResult:
    tree = decorators_by_call(getattrs_spelled_out(tree))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    if "ModelNew" not in classes:
        return _fail(source, [Finding("format", 0, 0, "no top-level class ModelNew")], status="format_error")
    index = ModuleIndex(tree)
    problems = PolicyVisitor(index).run(tree) + rebinding_problems(index)
    problems += _model_problems(tree, classes)
    problems += _cpp_problems(tree, allowed_ops)
    problems += unbound_problems(tree, source)
    if rules == "kernelbench":
        problems = [p for p in problems if p.rule not in _KB_RELAXED]
    if problems:
        return _fail(source, sorted(problems, key=lambda p: (p.line, p.col)))
    path = DataPath(index, allowed_ops, None if backend in (None, "", "auto") else backend)
    path.run()
    plan = path.plan
    later = deferred_problems(index, [tree, *(plan.functions[k] for k in (*plan.init_keys, *plan.import_keys))])
    found_v = sorted({v for v in [*path.violations, *((f.line, f.col, f.message, f.rule) for f in later)]
                      if rules != "kernelbench" or v[3] not in _KB_RELAXED})
    if found_v:
        return _fail(source, [Finding(rule, ln, col, msg) for ln, col, msg, rule in found_v])
    found = tuple(sorted(path.launched))
    want = None if backend in (None, "", "auto") else backend
    if (want is None and not found) or (want is not None and want not in found):
        what = f"no {want} kernel" if want else "no custom kernel"
        seen = f" (kernels found: {', '.join(found)})" if found else ""
        f = Finding("no_kernel", classes["ModelNew"].lineno, classes["ModelNew"].col_offset,
                    f"{what} launched from ModelNew's forward path{seen}")
        return replace(_fail(source, [f]), backends=found)
    late = sorted({v for v in path.deferred if rules != "kernelbench" or v[3] not in _KB_RELAXED})
    if late:
        return replace(_fail(source, [Finding(rule, ln, col, msg) for ln, col, msg, rule in late]), backends=found)
    return GateResult(True, "", "", "", "ok", found, init_code=init_code(path.plan))


def _fail(source: str, findings: list[Finding], status: str = "rejected", rules: str = "leap") -> GateResult:
    first = findings[0]
    reason = gate_feedback(_REASONS.get(first.rule, REASON_POLICY), first.rule, first.line, first.col,
                           first.message, source)
    detail = f"[{first.rule}] " + "; ".join(f"line {f.line}: {f.message}" for f in findings[:4])
    return GateResult(False, reason, detail, first.rule, status, findings=tuple(findings[:8]), rules=rules)


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
        out += _reference_body_problems(own_model)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "Model" and id(node) not in inside:
            out.append(Finding("uses_model", node.lineno, node.col_offset, "the candidate refers to the reference Model"))
            break
    return out


def _reference_body_problems(model: ast.ClassDef) -> list[Finding]:
    """The pasted reference ``Model`` is skipped by the data-path analysis, but its class statement runs at
    import: it may hold only method definitions (plain, staticmethod, classmethod or property; literal
    defaults), a docstring, ``pass`` and constants, and name its bases plainly."""
    bad: list[ast.AST] = [*model.decorator_list, *model.keywords]
    bad += [b for b in model.bases if not isinstance(b, ast.Name | ast.Attribute)]
    for stmt in model.body:
        if isinstance(stmt, ast.FunctionDef):
            bad += [d for d in stmt.decorator_list
                    if not (isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod", "property"))]
            bad += [d for d in [*stmt.args.defaults, *stmt.args.kw_defaults] if d is not None and not _literal(d)]
            bad += [a.annotation for a in [*stmt.args.args, *stmt.args.kwonlyargs, *stmt.args.posonlyargs]
                    if a.annotation is not None and not plain_annotation(a.annotation)]
            if stmt.returns is not None and not plain_annotation(stmt.returns):
                bad.append(stmt.returns)
        elif isinstance(stmt, ast.Expr | ast.Assign | ast.AnnAssign):
            value = stmt.value
            if (value is not None and not _literal(value)
                    or isinstance(stmt, ast.AnnAssign) and not plain_annotation(stmt.annotation)):
                bad.append(stmt)
        elif not isinstance(stmt, ast.Pass):
            bad.append(stmt)
    return [Finding("reference_class_body", n.lineno, n.col_offset,
                    "the reference class Model may hold only method definitions and constants: its class "
                    "statement runs at import, unanalysed") for n in bad[:1]]


def _literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


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
        bad = include_problem(text)
        if bad is not None:
            out.append(Finding("cpp_forbidden", node.lineno, node.col_offset, bad))
        m = re.search(T.CPP_HOST_MEMORY, code)
        if m:
            out.append(Finding("host_compute", *at(m), "host memory the device reads and writes (managed, pinned "
                               f"or mapped) in C++ source; the kernels must compute on the device: {m.group(0)!r}"))
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
