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


def test_host_python_bodies_are_refused_and_honest_kernels_run():
    from triton.compiler.errors import CompilationError

    from leap.sandbox.worker import triton_frontend

    failures: list[str] = []
    assert triton_frontend.watch(failures)
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
