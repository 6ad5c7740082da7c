"""LEGIT (round 33): "last program finalises": each of S programs of a row stores its partial with a scalar
plain store into ``part[r, s]``, then bumps an acq_rel counter (``tl.atomic_add(cnt + r, 1)``: releases the
partial, and, as a scalar atomic, is a CTA barrier); the program that sees S-1 has acquired every other
program's release, reads all S partials with scalar ``tl.load``s (its own included, stored before the atomic)
and writes the row total with a scalar store. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def rowsum_last(x_ptr, part_ptr, cnt_ptr, out_ptr, C, SLAB, S: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    s = tl.program_id(1)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, SLAB, BLOCK):
        lc = c0 + tl.arange(0, BLOCK)
        cols = s * SLAB + lc
        acc += tl.load(x_ptr + r * C + cols, mask=(cols < C) & (lc < SLAB), other=0.0)
    tl.store(part_ptr + r * S + s, tl.sum(acc, axis=0))
    done = tl.atomic_add(cnt_ptr + r, 1, sem="acq_rel")
    if done == S - 1:
        tot = 0.0
        for i in range(S):
            tot += tl.load(part_ptr + r * S + i)
        tl.store(out_ptr + r, tot)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        S = 4
        part = torch.empty(R * S, dtype=torch.float32, device=x.device)
        cnt = torch.zeros(R, dtype=torch.int32, device=x.device)
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        rowsum_last[(R, S)](x, part, cnt, out, C, triton.cdiv(C, S), S=S, BLOCK=64)
        return out
