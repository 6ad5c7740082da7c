"""The CPU interpreter's mask fix: a bounds mask mixing a block and a scalar comparison (every convolution's
``(ow < W) & (ih >= 0)``) loads and stores as on the GPU instead of failing in the interpreter."""

from __future__ import annotations

import os

import pytest
import torch

from leap.sandbox.worker.interpreter_masks import install


def test_block_and_scalar_comparison_mask_loads_and_stores():
    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("needs TRITON_INTERPRET=1 (the CPU interpreter; CI sets it)")
    import triton
    import triton.language as tl

    install()

    @triton.jit
    def shift_rows(x_ptr, y_ptr, H, W, BLOCK: tl.constexpr):
        oh = tl.program_id(0)
        ow = tl.arange(0, BLOCK)
        ih = oh - 1
        m = (ow < W) & (ih >= 0) & (ih < H)
        v = tl.load(x_ptr + ih * W + ow, mask=m, other=0.0)
        tl.store(y_ptr + oh * W + ow, v, mask=(ow < W) & (oh >= 0))
        tl.atomic_add(y_ptr + oh * W + ow, v * 0.0, mask=m)

    x = torch.randn(5, 6)
    y = torch.full((5, 6), 7.0)
    shift_rows[(5,)](x, y, 5, 6, BLOCK=8)
    assert torch.equal(y[0], torch.zeros(6)) and torch.equal(y[1:], x[:4])
