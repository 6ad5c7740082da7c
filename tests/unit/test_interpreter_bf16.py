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


def test_dot_casts_and_scans_of_bf16_blocks_in_the_interpreter():
    """``tl.dot`` multiplies bf16 values (it multiplied bit patterns), casts to and from bf16 go by value
    (bools from a comparison, ints, float64), and scans accumulate values (a red-team pass, 2026-12-03)."""
    import os

    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("needs TRITON_INTERPRET=1 (the CPU interpreter; CI sets it)")
    import triton
    import triton.language as tl

    install()

    @triton.jit
    def k(a_ptr, b_ptr, o_ptr, OP: tl.constexpr, N: tl.constexpr):
        r = tl.arange(0, N)
        if OP == 0:  # a 16x16 bf16 matmul accumulated in fp32, stored as bf16
            a = tl.load(a_ptr + r[:, None] * N + r[None, :])
            b = tl.load(b_ptr + r[:, None] * N + r[None, :])
            tl.store(o_ptr + r[:, None] * N + r[None, :], tl.dot(a, b).to(tl.bfloat16))
        else:
            x = tl.load(a_ptr + r)
            if OP == 1:
                y = x * (x > 0)
            elif OP == 2:
                y = (x > 0).to(tl.bfloat16) * x
            elif OP == 3:
                y = r.to(tl.bfloat16) + x
            elif OP == 4:
                y = (x.to(tl.float64) * 2).to(tl.bfloat16)
            else:
                y = tl.cumsum(x, 0)
            tl.store(o_ptr + r, y)

    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(16, 16, generator=g).bfloat16(), torch.randn(16, 16, generator=g).bfloat16()
    o = torch.empty_like(a)
    k[(1,)](a, b, o, OP=0, N=16)
    assert torch.allclose(o.float(), (a.float() @ b.float()).bfloat16().float(), rtol=2e-2, atol=2e-2)
    x = a[0].contiguous()
    want = {1: x.float().relu(), 2: x.float().relu(), 3: torch.arange(16.0) + x.float(), 4: x.float() * 2,
            5: x.float().cumsum(0)}
    for op, w in want.items():
        y = torch.empty_like(x)
        k[(1,)](x, b, y, OP=op, N=16)
        assert torch.allclose(y.float(), w, rtol=3e-2, atol=3e-2), (op, y, w)


def test_float32_to_bf16_rounds_to_nearest_even_as_on_a_gpu():
    """The interpreter truncated fp32 -> bf16 (``.to``, an implicit store): correct kernels that round several
    times came out `incorrect` (a fourth pass, 2026-12-03). An explicit round-toward-zero still truncates."""
    import os

    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("needs TRITON_INTERPRET=1 (the CPU interpreter; CI sets it)")
    import triton
    import triton.language as tl

    install()

    @triton.jit
    def k(x_ptr, cast_ptr, store_ptr, rtz_ptr, n, B: tl.constexpr):
        i = tl.program_id(0) * B + tl.arange(0, B)
        m = i < n
        v = tl.load(x_ptr + i, mask=m) * 1.0009765625  # an fp32 value with bits below bf16's mantissa
        tl.store(cast_ptr + i, v.to(tl.bfloat16), mask=m)
        tl.store(store_ptr + i, v, mask=m)  # converted by the store
        tl.store(rtz_ptr + i, v.to(tl.bfloat16, fp_downcast_rounding="rtz"), mask=m)

    x = torch.randn(4096, generator=torch.Generator().manual_seed(1))
    outs = [torch.empty(4096, dtype=torch.bfloat16) for _ in range(3)]
    k[(4,)](x, *outs, 4096, B=1024)
    v = x * 1.0009765625
    want = v.bfloat16()
    assert torch.equal(outs[0], want) and torch.equal(outs[1], want)
    truncated = torch.from_numpy((v.numpy().view(np.uint32) >> 16).astype(np.uint16).view(np.int16)).view(torch.bfloat16)
    assert torch.equal(outs[2], truncated) and not torch.equal(truncated, want)
