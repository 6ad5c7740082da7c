"""Where a candidate's error started, for the judge's "needs a GPU" decision (`judge/verifier.needs_gpu_error`).

On a machine without a GPU a solution written for CUDA fails, and that failure says nothing about the solution:
the verdict is ``needs_gpu`` (unjudged). Its message cannot decide that — the candidate writes messages — so the
child reports where the error's chain started: a library file (torch's CUDA initialisation, Triton's driver, the
interpreter's libdevice stand-ins: the judge keeps a list), ``candidate_cuda_check`` when the candidate's own
``assert``/``raise`` failed on a test of whether its inputs are on CUDA (``assert x.is_cuda``, ``if x.device.type
!= "cuda": raise ...``, ``torch.cuda.is_available()``: KernelBench's examples do this), or ``candidate``.
"""

from __future__ import annotations

import ast
import linecache

CANDIDATE = "candidate"
CANDIDATE_CUDA_CHECK = "candidate_cuda_check"


def raise_site(exc: BaseException) -> str:
    """Where the first exception of ``exc``'s chain (causes and contexts, followed to the root) was raised: the
    file of its innermost Python frame (native code raising counts at the last Python frame before it), or one
    of `CANDIDATE` (the candidate's own exception class) and `CANDIDATE_CUDA_CHECK`."""
    seen = {id(exc)}
    while True:
        nxt = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
        if nxt is None or id(nxt) in seen:
            break
        seen.add(id(nxt))
        exc = nxt
    if type(exc).__module__ == "leap_candidate":
        return CANDIDATE
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    path = tb.tb_frame.f_code.co_filename
    if path.endswith("/candidate.py") and _cuda_check_failed(path, tb.tb_lineno, isinstance(exc, AssertionError)):
        return CANDIDATE_CUDA_CHECK
    return path


def _cuda_check_failed(path: str, line: int, assertion: bool) -> bool:
    """The statement at ``line`` of the candidate is an ``assert`` (the error its AssertionError) whose test
    fails on any machine without CUDA, or a ``raise`` directly under an ``if`` whose test holds there."""
    try:
        tree = ast.parse("".join(linecache.getlines(path)) or open(path).read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return assertion and _without_cuda(node.test) is False
        if isinstance(node, ast.If) and _without_cuda(node.test) is True:
            for stmt in node.body:
                if isinstance(stmt, ast.Raise) and stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
                    return True
    return False


def _without_cuda(test: ast.expr) -> bool | None:
    """The test's value on a machine without CUDA when CUDA alone decides it, else None (it depends on other
    values: ``x.is_cuda or n % 1024 == 0`` is None, ``x.is_cuda and x.is_contiguous()`` False). CUDA
    predicates: ``x.is_cuda``, ``torch.cuda.is_available()``, ``x.device(.type) == "cuda"`` (or
    ``torch.device("cuda")``), ``all``/``any`` of one over a literal tuple or list; then ``not``/``and``/``or``."""
    if isinstance(test, ast.Attribute) and test.attr == "is_cuda":
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        v = _without_cuda(test.operand)
        return None if v is None else not v
    if isinstance(test, ast.BoolOp):
        vals = [_without_cuda(v) for v in test.values]
        decisive = isinstance(test.op, ast.Or)  # True decides an or, False an and
        if decisive in vals:
            return decisive
        return (not decisive) if all(v is not None for v in vals) else None
    if isinstance(test, ast.Call):
        f = test.func
        if isinstance(f, ast.Attribute) and f.attr == "is_available" and isinstance(f.value, ast.Attribute) \
                and f.value.attr == "cuda" and not test.args:
            return False
        if isinstance(f, ast.Name) and f.id in ("all", "any") and len(test.args) == 1 \
                and isinstance(test.args[0], ast.GeneratorExp | ast.ListComp):
            gen = test.args[0]
            v = _without_cuda(gen.elt)
            literal = all(isinstance(g.iter, ast.Tuple | ast.List) and g.iter.elts and not g.ifs
                          for g in gen.generators)
            if v is None or not literal:
                return None
            return v  # every item has the same value (a non-empty literal: all() and any() agree)
        return None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq | ast.NotEq):
        a, b = test.left, test.comparators[0]
        if (_is_device(a) and _is_cuda_value(b)) or (_is_device(b) and _is_cuda_value(a)):
            return isinstance(test.ops[0], ast.NotEq)
    return None


def _is_device(e: ast.expr) -> bool:
    return isinstance(e, ast.Attribute) and (e.attr == "device" or (
        e.attr == "type" and isinstance(e.value, ast.Attribute) and e.value.attr == "device"))


def _is_cuda_value(e: ast.expr) -> bool:
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str) and e.value.split(":")[0] == "cuda"
    return (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "device"
            and len(e.args) == 1 and _is_cuda_value(e.args[0]))
