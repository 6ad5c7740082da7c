"""Every kernel launched on the CPU compiles as Triton for a GPU (worker/triton_frontend): a body that only the
interpreter runs (Python ints from tensors, ``math`` on values, non-constexpr globals) is refused with Triton's
own compile error; honest kernels (helper device functions, ``tl`` library functions, also after a launch has
left the interpreter's patches behind) compile."""

from __future__ import annotations

import math
import os

import pytest
import torch

pytestmark = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1",
                                reason="needs TRITON_INTERPRET=1 (the CPU interpreter; CI sets it)")

SCALE = 2.0  # a plain global: not readable from a Triton kernel


import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def helper(v):
    return tl.maximum(v, 0.0)


@triton.jit
def honest(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, helper(v) + tl.sigmoid(v) * 0.0 + tl.cdiv(n, BLOCK) * 0.0, mask=m)


@triton.jit
def host_python(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i: float = len(range(tl.program_id(0)))
    tl.store(y_ptr + i, math.tanh(tl.load(x_ptr + i)))


@triton.jit
def plain_global(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * SCALE)


def test_host_python_bodies_are_refused_and_honest_kernels_run(monkeypatch):
    from triton.compiler.errors import CompilationError
    from triton.runtime.interpreter import InterpretedFunction

    from leap.sandbox.worker import triton_frontend

    monkeypatch.setattr(InterpretedFunction, "run", InterpretedFunction.run)  # the watch is undone after
    monkeypatch.setattr(InterpretedFunction, "__call__", InterpretedFunction.__call__)
    failures: list[str] = []
    assert triton_frontend.watch(failures)
    assert triton_frontend.available(), triton_frontend.PROBE_ERROR
    x = torch.randn(300)
    y = torch.empty_like(x)
    for block in (128, 64):  # the second check (a new signature) runs after a launch left the interpreter's
        honest[(triton.cdiv(300, block),)](x, y, 300, BLOCK=block)  # patches behind
        assert torch.allclose(y, x.clamp(min=0)) and failures == []
    for kernel, words in ((host_python, "cannot be interpreted as an integer"), (plain_global, "global variable")):
        with pytest.raises(CompilationError) as err:
            kernel[(3,)](x, y, 300, BLOCK=128)
        assert words in str(err.value)
    assert len(failures) == 2 and "does not compile as Triton for a GPU" in failures[0]


FLAG = tl.constexpr(False)


@triton.jit
def flagged(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if FLAG:
        i: float = len(range(tl.program_id(0)))
        tl.store(y_ptr + i, math.tanh(tl.load(x_ptr + i)))
    else:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@triton.jit
def strided(x_ptr, y_ptr, strides, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs * strides[1], tl.load(x_ptr + offs * strides[1], mask=offs < n), mask=offs < n)


@triton.jit
def typed_apart(x_ptr, y_ptr, s, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if isinstance(s, float):  # the interpreter's Python float; the front end's fp32 scalar: another branch
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)
    else:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def _factory(mode):
    @triton.jit
    def made(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * FLAG_SCALE + mode, mask=offs < n)

    return made


FLAG_SCALE = 1.0


def test_what_is_checked_is_what_runs(monkeypatch):
    """Launch options do not skip the check; a constexpr global flipped after a check is checked again; a
    tuple with a contiguous stride (a 1) compiles; a line the interpreter runs that the front end did not
    compile, a jit function called from host code and a closure name the module binds otherwise are refused."""
    from triton.compiler.errors import CompilationError
    from triton.runtime.interpreter import InterpretedFunction

    from leap.sandbox.worker import triton_frontend

    monkeypatch.setattr(InterpretedFunction, "run", InterpretedFunction.run)
    monkeypatch.setattr(InterpretedFunction, "__call__", InterpretedFunction.__call__)
    failures: list[str] = []
    triton_frontend.watch(failures)
    x, y = torch.randn(64), torch.empty(64)
    with pytest.raises(CompilationError):
        host_python[(1,)](x, y, 64, BLOCK=64, num_warps=4)
    flagged[(1,)](x, y, 64, BLOCK=64)
    monkeypatch.setattr(FLAG, "value", True)
    with pytest.raises(CompilationError):
        flagged[(1,)](x, y, 64, BLOCK=64)
    strided[(1,)](x, y, (64, 1), 64, BLOCK=64)
    assert torch.equal(y, x)
    with pytest.raises(triton_frontend.KernelCheckError, match="did not compile"):
        typed_apart[(1,)](x, y, 0.5, 64, BLOCK=64)
    with pytest.raises(triton_frontend.KernelCheckError, match="called outside a kernel"):
        helper(x)
    made = _factory(tl.constexpr(0.0))
    monkeypatch.setitem(globals(), "mode", 1.0)
    with pytest.raises(triton_frontend.KernelCheckError, match="enclosing function"):
        made[(1,)](x, y, 64, BLOCK=64)


@triton.jit
def one_line_apart(x_ptr, y_ptr, s, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n) * 2.0 if isinstance(s, float) else tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, v, mask=offs < n)


@triton.jit
def one_line_honest(x_ptr, y_ptr, n, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n) if MODE == 0 and BLOCK > 0 else tl.zeros([BLOCK], tl.float32)
    if MODE == 1: v = v + 1.0  # noqa: E701 - the point: a statement on the line of its test
    tl.store(y_ptr + offs, v * 2.0 if 0 < MODE < 3 else v, mask=offs < n)


def test_a_skipped_arm_on_a_compiled_line_is_not_run(monkeypatch):
    """The front end folds a one-line ternary to its decoy arm where the interpreter takes the other (a float
    typed two ways): the line was compiled, the arm was not, and running it refuses the kernel; one-line
    ternaries, ``and`` and chained comparisons that both read alike run, with either arm taken."""
    from triton.runtime.interpreter import InterpretedFunction

    from leap.sandbox.worker import triton_frontend

    monkeypatch.setattr(InterpretedFunction, "run", InterpretedFunction.run)
    monkeypatch.setattr(InterpretedFunction, "__call__", InterpretedFunction.__call__)
    failures: list[str] = []
    triton_frontend.watch(failures)
    x, y = torch.randn(64), torch.empty(64)
    with pytest.raises(triton_frontend.KernelCheckError, match="on line .* did not compile"):
        one_line_apart[(1,)](x, y, 0.5, 64, BLOCK=64)
    for mode, want in ((0, x), (1, torch.full_like(x, 2.0)), (3, torch.zeros_like(x))):
        one_line_honest[(1,)](x, y, 64, MODE=mode, BLOCK=64)
        assert torch.equal(y, want), mode
    assert len(failures) == 1


@triton.jit
def value_apart(x_ptr, y_ptr, s, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)  # below, the front end takes 0.5, the interpreter the loaded value
    tl.store(y_ptr + offs, v * 0.0 + int((0.5, tl.load(x_ptr))[isinstance(s, float)] * 1024.0) / 1024.0,
             mask=offs < n)


@triton.jit
def runtime_scalars(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):  # a loop bound and a test on loaded data: Python values in the interpreter
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    total = tl.sum(acc, axis=0)
    if total > 0:
        total = total * 1.0
    tl.store(y_ptr, total)


def test_data_turned_into_a_python_value_where_the_front_end_had_a_constant_is_refused(monkeypatch):
    """No arm skipped: the front end folds ``int(w * 1024)`` with ``w`` its constant, the interpreter turns a
    loaded value into a Python int there; refused. Loop bounds and tests on runtime values are not."""
    from triton.runtime.interpreter import InterpretedFunction

    from leap.sandbox.worker import triton_frontend

    monkeypatch.setattr(InterpretedFunction, "run", InterpretedFunction.run)
    monkeypatch.setattr(InterpretedFunction, "__call__", InterpretedFunction.__call__)
    failures: list[str] = []
    triton_frontend.watch(failures)
    x, y = torch.randn(200), torch.empty(200)
    with pytest.raises(triton_frontend.KernelCheckError, match="did not compile"):
        value_apart[(1,)](x, y, 0.5, 200, BLOCK=256)
    runtime_scalars[(1,)](x, y, 200, BLOCK=64)
    assert y[0].item() == pytest.approx(x.sum().item(), rel=1e-5, abs=1e-5)
    assert len(failures) == 1


def test_the_interpreter_finds_the_def_statement_not_a_def_line_in_a_docstring():
    from leap.sandbox.worker.interpreter_rewrite import def_line

    lines = ['@triton.jit\n', 'def k(x):\n', '    """Example:\n', '\n', 'def k(x):\n', '    pass\n',
             '"""\n', '    return x\n']
    assert def_line(lines, "k") == 2
    assert def_line(['@jit\n', 'def k(x):\n', '    if x:\n', '        def k(y):\n', '            pass\n'], "k") == 2
