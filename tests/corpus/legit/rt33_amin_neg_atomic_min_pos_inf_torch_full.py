"""LEGIT (round 33): row max as ``-min(-x)``: column splits ``tl.atomic_min`` their partial minimum of ``-x``
(fp32) into a buffer that torch fills with ``+inf`` before the launch (no plain store in the launch: rule 3 of
round 32 has nothing to order); a second launch negates and converts to bf16. GPU-correct (min is exact and
order-independent)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "amax_rows_bf16"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def neg_min_split(x_ptr, buf_ptr, C, SLAB, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    s = tl.program_id(1)
    m = tl.full((BLOCK,), float("inf"), dtype=tl.float32)
    for c0 in range(0, SLAB, BLOCK):
        lc = c0 + tl.arange(0, BLOCK)
        cols = s * SLAB + lc
        v = tl.load(x_ptr + r * C + cols, mask=(cols < C) & (lc < SLAB), other=float("-inf")).to(tl.float32)
        m = tl.minimum(m, -v)
    tl.atomic_min(buf_ptr + r, tl.min(m, axis=0))


@triton.jit
def finish(buf_ptr, out_ptr, R, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(buf_ptr + offs, mask=offs < R, other=0.0)
    tl.store(out_ptr + offs, (-v).to(tl.bfloat16), mask=offs < R)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        buf = torch.full((R,), float("inf"), dtype=torch.float32, device=x.device)
        SPLITS = 4
        neg_min_split[(R, SPLITS)](x, buf, C, triton.cdiv(C, SPLITS), BLOCK=64)
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        finish[(triton.cdiv(R, 32),)](buf, out, R, BLOCK=32)
        return out
