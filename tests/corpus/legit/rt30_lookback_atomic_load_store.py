"""LEGIT (round 30; Triton 3.9's ``tl.atomic_load`` / ``tl.atomic_store``): single-pass decoupled prefix sum
with ticket block ids; block vid publishes its inclusive prefix with ``tl.atomic_store(..., sem="release")``
and raises its flag the same way; block vid+1 polls the flag with ``tl.atomic_load(..., sem="acquire")`` and
reads the prefix with an acquire load. GPU-correct (release/acquire pairs order everything)."""
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
        while tl.atomic_load(flag_ptr + row * NB + vid - 1, sem="acquire") == 0:
            pass
        carry = tl.atomic_load(incl_ptr + row * NB + vid - 1, sem="acquire")
    tl.atomic_store(incl_ptr + row * NB + vid, carry + tl.sum(v, axis=0), sem="release")
    tl.atomic_store(flag_ptr + row * NB + vid, 1, sem="release")
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
