"""LEGIT (round 32): row sums split over a 2-D grid (``program_id(0)`` = row block, ``program_id(1)`` = column
split); each program reduces its slab with a ``tl.range(..., loop_unroll_factor=2)`` loop and adds its per-row
partials into a zero-initialised output with ``tl.atomic_add(..., sem="relaxed")`` (only the final value is
read, after the launch). Float addition order differs between runs: within tolerance. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def rowsum_split_kernel(x_ptr, out_ptr, R, C, COLS_PER_SPLIT, BR: tl.constexpr, BC: tl.constexpr):
    pr = tl.program_id(0)
    ps = tl.program_id(1)
    rows = pr * BR + tl.arange(0, BR)
    rm = rows < R
    c_lo = ps * COLS_PER_SPLIT
    acc = tl.zeros((BR, BC), dtype=tl.float32)
    for c0 in tl.range(0, COLS_PER_SPLIT, BC, loop_unroll_factor=2):
        cols = c_lo + c0 + tl.arange(0, BC)
        cm = (cols < C) & (c0 + tl.arange(0, BC) < COLS_PER_SPLIT)
        acc += tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=rm[:, None] & cm[None, :], other=0.0)
    tl.atomic_add(out_ptr + rows, tl.sum(acc, axis=1), mask=rm, sem="relaxed")


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.zeros(R, dtype=torch.float32, device=x.device)
        SPLITS = 3
        per = triton.cdiv(C, SPLITS)
        BR = 8
        rowsum_split_kernel[(triton.cdiv(R, BR), SPLITS)](x, out, R, C, per, BR=BR, BC=64)
        return out
