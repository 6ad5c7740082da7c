"""LEGIT (round 33): test-and-test-and-set style waiting. Per row the ticket-0 program zeroes ``out[r]`` (plain
store) and releases ``flag[r]`` with ``atomic_xchg``; the others spin with a cheap ``tl.load(flag + r,
volatile=True)`` (``ld.volatile``: a strong relaxed load in the PTX memory model, so it does not race with the
atomic) and, once it reads 1, take an acquire with one ``tl.atomic_add(flag + r, 0, sem="acquire")`` (it reads 1
from the release, which synchronises-with it) before adding. The plain-data read happens only after the
acquire. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def rowsum_split(x_ptr, out_ptr, ticket_ptr, flag_ptr, C, SLAB, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    s = tl.program_id(1)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, SLAB, BLOCK):
        lc = c0 + tl.arange(0, BLOCK)
        cols = s * SLAB + lc
        acc += tl.load(x_ptr + r * C + cols, mask=(cols < C) & (lc < SLAB), other=0.0)
    t = tl.atomic_add(ticket_ptr + r, 1)
    if t == 0:
        tl.store(out_ptr + r, 0.0)
        tl.atomic_xchg(flag_ptr + r, 1, sem="release")
    else:
        while tl.load(flag_ptr + r, volatile=True) == 0:
            pass
        tl.atomic_add(flag_ptr + r, 0, sem="acquire")
    tl.atomic_add(out_ptr + r, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        ticket = torch.zeros(R, dtype=torch.int32, device=x.device)
        flag = torch.zeros(R, dtype=torch.int32, device=x.device)
        SPLITS = 4
        rowsum_split[(R, SPLITS)](x, out, ticket, flag, C, triton.cdiv(C, SPLITS), BLOCK=64)
        return out
