"""LEGIT (round 30): single-pass decoupled prefix sum, robust form: dynamic block ids from a per-row ticket
(so a block only ever waits on one that already started), the block's inclusive prefix published with
``atomic_xchg`` after a flag-free spin: the predecessor's flag is polled with ``atomic_add(flag, 0)`` until set,
then its inclusive prefix is read atomically. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def lookback_scan(x_ptr, out_ptr, ticket_ptr, incl_ptr, flag_ptr, C, NB, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    vid = tl.atomic_add(ticket_ptr + row, 1)
    offs = vid * BLOCK + tl.arange(0, BLOCK)
    m = offs < C
    v = tl.load(x_ptr + row * C + offs, mask=m, other=0.0)
    carry = 0.0
    if vid > 0:
        while tl.atomic_add(flag_ptr + row * NB + vid - 1, 0) == 0:
            pass
        carry = tl.atomic_add(incl_ptr + row * NB + vid - 1, 0.0)
    tl.atomic_xchg(incl_ptr + row * NB + vid, carry + tl.sum(v, axis=0))
    tl.atomic_xchg(flag_ptr + row * NB + vid, 1)
    tl.store(out_ptr + row * C + offs, tl.cumsum(v, axis=0) + carry, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        BLOCK = 64
        NB = triton.cdiv(C, BLOCK)
        out = torch.empty_like(x)
        ticket = torch.zeros(R, dtype=torch.int32, device=x.device)
        incl = torch.zeros(R * NB, dtype=x.dtype, device=x.device)
        flag = torch.zeros(R * NB, dtype=torch.int32, device=x.device)
        lookback_scan[(R, NB)](x, out, ticket, incl, flag, C, NB, BLOCK=BLOCK)
        return out
