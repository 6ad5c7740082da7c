"""LEGIT (round 33): split-row sums whose accumulator is zeroed by a *separate* init kernel launch (plain
stores) before the atomic kernel: the launch boundary orders the init before every ``tl.atomic_add`` of the
next launch (stream order on a GPU), so rule 3 of round 32 (an atomic must have acquired another program's
plain store) must not apply across launches. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def zero_kernel(out_ptr, R, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < R)


@triton.jit
def rowsum_split(x_ptr, out_ptr, C, SLAB, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    s = tl.program_id(1)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, SLAB, BLOCK):
        lc = c0 + tl.arange(0, BLOCK)
        cols = s * SLAB + lc
        acc += tl.load(x_ptr + r * C + cols, mask=(cols < C) & (lc < SLAB), other=0.0)
    tl.atomic_add(out_ptr + r, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty(R, dtype=torch.float32, device=x.device)
        zero_kernel[(triton.cdiv(R, 64),)](out, R, BLOCK=64)
        SPLITS = 4
        rowsum_split[(R, SPLITS)](x, out, C, triton.cdiv(C, SPLITS), BLOCK=64)
        return out
