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
    if path.endswith("/candidate.py") and _cuda_check_failed(path, tb.tb_lineno):
        return CANDIDATE_CUDA_CHECK
    return path


def _cuda_check_failed(path: str, line: int) -> bool:
    """The statement at ``line`` of the candidate is an ``assert`` whose test is a CUDA check, or a ``raise``
    directly under an ``if`` whose test is one."""
    try:
        tree = ast.parse("".join(linecache.getlines(path)) or open(path).read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return _is_cuda_test(node.test)
        if isinstance(node, ast.If) and _is_cuda_test(node.test):
            for stmt in [*node.body, *node.orelse]:
                if isinstance(stmt, ast.Raise) and stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
                    return True
    return False


def _is_cuda_test(test: ast.expr) -> bool:
    """``x.is_cuda``, ``x.device.type == "cuda"``, ``x.device == torch.device("cuda")``,
    ``torch.cuda.is_available()`` (negated, combined with and/or: any part)."""
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute) and n.attr == "is_cuda":
            return True
        if isinstance(n, ast.Attribute) and n.attr == "is_available" and isinstance(n.value, ast.Attribute) \
                and n.value.attr == "cuda":
            return True
        if isinstance(n, ast.Compare):
            parts = [n.left, *n.comparators]
            device = any(isinstance(p, ast.Attribute) and p.attr in ("device", "type") for p in parts)
            cuda = any(isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.startswith("cuda")
                       for p in parts for c in ast.walk(p))
            if device and cuda:
                return True
    return False
