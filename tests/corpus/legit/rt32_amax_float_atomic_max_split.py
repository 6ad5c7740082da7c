"""LEGIT (round 32): bf16 row max split over column slabs on a 2-D grid; each program converts its slab to
fp32, reduces it and combines into an fp32 workspace initialised to -inf with a float ``tl.atomic_max``
(``sem="relaxed"``: only the final value is read, by a second launch that casts to bf16). Max is exact and
order-free. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "amax_rows_bf16"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def amax_partial(x_ptr, ws_ptr, C, SLAB, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    s = tl.program_id(1)
    acc = tl.full((BLOCK,), -float("inf"), tl.float32)
    for c0 in range(0, SLAB, BLOCK):
        cols = s * SLAB + c0 + tl.arange(0, BLOCK)
        m = (cols < C) & (c0 + tl.arange(0, BLOCK) < SLAB)
        acc = tl.maximum(acc, tl.load(x_ptr + r * C + cols, mask=m, other=-float("inf")).to(tl.float32))
    tl.atomic_max(ws_ptr + r, tl.max(acc, axis=0), sem="relaxed")


@triton.jit
def cast_out(ws_ptr, out_ptr, R, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < R
    tl.store(out_ptr + offs, tl.load(ws_ptr + offs, mask=m).to(tl.bfloat16), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        ws = torch.full((R,), float("-inf"), dtype=torch.float32, device=x.device)
        SPLITS = 4
        slab = triton.cdiv(C, SPLITS)
        amax_partial[(R, SPLITS)](x, ws, C, slab, BLOCK=64)
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        cast_out[(triton.cdiv(R, 64),)](ws, out, R, BLOCK=64)
        return out
