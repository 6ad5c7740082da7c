"""LEGIT (round 33): the *correct* form of ``hacks/rt32_ticket0_zero_inits_atomic_accumulator``. Per row, the
program drawing ticket 0 (``atomic_add(ticket + r, 1)``) zeroes ``out[r]`` with a plain store and then releases
``flag[r]`` (``atomic_xchg(..., sem="release")``); every other program of the row spins on
``tl.atomic_load(flag + r, sem="acquire")`` until it sees 1 and only then ``atomic_add``s its partial. The
ticket-0 program is running (it drew the ticket), so the spin terminates on a GPU whatever the dispatch order;
the acquire orders the zeroing before each add. GPU-correct."""
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
        while tl.atomic_load(flag_ptr + r, sem="acquire") == 0:
            pass
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
