"""LEGIT (round 33): "last program finalises" with a self-cleaning workspace kept across calls: each of S
programs of a row stores its partial into ``part[r, s]`` with a plain scalar store, then bumps an acq_rel
counter; the program that sees S-1 (it acquired every other program's release) collects the partials with
``tl.atomic_xchg(part + ..., 0.0)`` — atomics over other programs' *plain* stores, which it acquired *before*,
through the counter (round 32's rule 3 is satisfied) — and resets the counter with ``atomic_xchg(cnt, 0)`` so
the next call finds a clean workspace. GPU-correct."""
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
    done = tl.atomic_add(cnt_ptr + r, 1)
    if done == S - 1:
        tot = 0.0
        for i in range(S):
            tot += tl.atomic_xchg(part_ptr + r * S + i, 0.0)
        tl.atomic_xchg(cnt_ptr + r, 0)
        tl.store(out_ptr + r, tot)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._ws = {}

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        S = 4
        key = (R, x.device)
        if key not in self._ws:
            self._ws[key] = (torch.zeros(R * S, dtype=torch.float32, device=x.device),
                             torch.zeros(R, dtype=torch.int32, device=x.device))
        part, cnt = self._ws[key]
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        rowsum_last[(R, S)](x, part, cnt, out, C, triton.cdiv(C, S), S=S, BLOCK=64)
        return out
