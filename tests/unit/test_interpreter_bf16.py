"""The CPU interpreter's bf16 fix: bit-pattern conversions agree with torch's bfloat16 (round to nearest
even, NaN kept), and a bf16 kernel computes what torch computes in bf16."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from leap.sandbox.worker.interpreter_bf16 import install, to_bf16, to_f32


def test_conversions_match_torch_bfloat16():
    x = torch.cat([torch.randn(10_000) * 100, torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"),
                                                            1e-40, 3.0e38])])
    bits = to_bf16(x.numpy())
    want = x.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    assert np.array_equal(np.isnan(to_f32(bits)), np.isnan(x.numpy()))
    ok = ~np.isnan(x.numpy())
    assert np.array_equal(bits[ok], want[ok])
    assert np.array_equal(to_f32(want), x.to(torch.bfloat16).float().numpy(), equal_nan=True)


def test_bf16_kernel_matches_torch_in_the_interpreter():
    import os

    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("needs TRITON_INTERPRET=1 (the CPU interpreter; CI sets it)")
    import triton
    import triton.language as tl

    install()

    @triton.jit
    def k(x_ptr, y_ptr, o_ptr, n, B: tl.constexpr):
        i = tl.program_id(0) * B + tl.arange(0, B)
        m = i < n
        a = tl.load(x_ptr + i, mask=m)
        b = tl.load(y_ptr + i, mask=m)
        tl.store(o_ptr + i, tl.maximum(a * b, a - b), mask=m)

    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(2048, generator=g).bfloat16(), torch.randn(2048, generator=g).bfloat16()
    o = torch.empty_like(x)
    k[(2,)](x, y, o, 2048, B=1024)
    assert torch.equal(o, torch.maximum(x * y, x - y))
