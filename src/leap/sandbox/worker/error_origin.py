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
    """The statement at ``line`` of the candidate is an ``assert`` (the error its AssertionError) whose test is a
    CUDA check, or a ``raise`` directly under an ``if`` whose test is one."""
    try:
        tree = ast.parse("".join(linecache.getlines(path)) or open(path).read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return assertion and _is_cuda_test(node.test)
        if isinstance(node, ast.If) and _is_cuda_test(node.test):
            for stmt in [*node.body, *node.orelse]:
                if isinstance(stmt, ast.Raise) and stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
                    return True
    return False


def _is_cuda_test(test: ast.expr) -> bool:
    """The whole test is about CUDA and nothing else (so it fails on a CPU whatever the inputs' values):
    ``x.is_cuda``, ``torch.cuda.is_available()``, ``x.device.type == "cuda"``, ``x.device != torch.device("cuda")``,
    ``all(t.is_cuda for t in ts)``, and ``not``/``and``/``or`` of those."""
    if isinstance(test, ast.Attribute):
        return test.attr == "is_cuda"
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _is_cuda_test(test.operand)
    if isinstance(test, ast.BoolOp):
        return all(_is_cuda_test(v) for v in test.values)
    if isinstance(test, ast.Call):
        f = test.func
        if isinstance(f, ast.Attribute) and f.attr == "is_available" and isinstance(f.value, ast.Attribute) \
                and f.value.attr == "cuda" and not test.args:
            return True
        if isinstance(f, ast.Name) and f.id in ("all", "any") and len(test.args) == 1 \
                and isinstance(test.args[0], ast.GeneratorExp | ast.ListComp):
            return _is_cuda_test(test.args[0].elt)
        return False
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq | ast.NotEq):
        a, b = test.left, test.comparators[0]
        return (_is_device(a) and _is_cuda_value(b)) or (_is_device(b) and _is_cuda_value(a))
    return False


def _is_device(e: ast.expr) -> bool:
    return isinstance(e, ast.Attribute) and (e.attr == "device" or (
        e.attr == "type" and isinstance(e.value, ast.Attribute) and e.value.attr == "device"))


def _is_cuda_value(e: ast.expr) -> bool:
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str) and e.value.split(":")[0] == "cuda"
    return (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "device"
            and len(e.args) == 1 and _is_cuda_value(e.args[0]))
