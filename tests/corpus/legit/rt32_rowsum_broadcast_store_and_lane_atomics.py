"""LEGIT (round 32): two honest idioms on row sums, one launch each: (1) every lane of a block stores the same
scalar result to one address (``tl.store(out + row + zeros, full_block)``: redundant identical writes, legal on
a GPU); (2) a vector ``tl.atomic_add`` whose lanes all target one address (``ws + row + zeros``), summing the
per-lane partials into a zero-initialised workspace (hardware serialises them; only float rounding order varies).
A third launch returns the mean of the two (equal up to
rounding). GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def rowsum_bcast_store(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        acc += tl.load(x_ptr + row * C + c0 + offs, mask=c0 + offs < C, other=0.0)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row + tl.zeros((BLOCK,), dtype=tl.int32), tl.full((BLOCK,), 0.0, tl.float32) + total)


@triton.jit
def rowsum_lane_atomics(x_ptr, ws_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        acc += tl.load(x_ptr + row * C + c0 + offs, mask=c0 + offs < C, other=0.0)
    tl.atomic_add(ws_ptr + row + tl.zeros((BLOCK,), dtype=tl.int32), acc, sem="relaxed")


@triton.jit
def average_kernel(a_ptr, b_ptr, out_ptr, R, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < R
    a = tl.load(a_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, 0.5 * (a + b), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        s1 = torch.empty(R, dtype=torch.float32, device=x.device)
        s2 = torch.zeros(R, dtype=torch.float32, device=x.device)
        rowsum_bcast_store[(R,)](x, s1, C, BLOCK=64)
        rowsum_lane_atomics[(R,)](x, s2, C, BLOCK=64)
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        average_kernel[(triton.cdiv(R, 64),)](s1, s2, out, R, BLOCK=64)
        return out
