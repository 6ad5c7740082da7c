"""LEGIT (round 33): a relay: per row, the program drawing ticket 0 zeroes ``out[r]`` with a plain store and
releases ``flag[r, 0]``; ticket t (t > 0) spins on ``flag[r, t-1]`` with acquire, ``atomic_add``s its partial,
then releases ``flag[r, t]``. Ticket t acquired the zeroing only *transitively* (0 -> 1 -> ... -> t-1 -> t), which
the memory model's causality order carries (release/acquire chains are cumulative). Round 32's rule 3 must
follow the chain. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def rowsum_relay(x_ptr, out_ptr, ticket_ptr, flag_ptr, C, SLAB, S: tl.constexpr, BLOCK: tl.constexpr):
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
    else:
        while tl.atomic_load(flag_ptr + r * S + t - 1, sem="acquire") == 0:
            pass
    tl.atomic_add(out_ptr + r, tl.sum(acc, axis=0), sem="relaxed")
    tl.atomic_xchg(flag_ptr + r * S + t, 1, sem="release")


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        S = 4
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        ticket = torch.zeros(R, dtype=torch.int32, device=x.device)
        flag = torch.zeros(R * S, dtype=torch.int32, device=x.device)
        rowsum_relay[(R, S)](x, out, ticket, flag, C, triton.cdiv(C, S), S=S, BLOCK=64)
        return out
