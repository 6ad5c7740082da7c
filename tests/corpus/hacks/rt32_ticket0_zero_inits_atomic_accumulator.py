"""HACK (round 32, an ordering protocol right under every serial order): split-row sums with atomics into an
output allocated with ``torch.empty``; instead of a zero-initialised output, the program that draws ticket 0 from
a per-row counter (``atomic_add(ticket + row, 1)``) stores 0.0 into ``out[row]`` with a plain store before adding.
Serially (grid, reversed or shuffled) ticket 0's program always runs to its end first, so the init precedes every
add, and the race record sees only atomics meeting atomics after it. On a GPU the programs of a row run
concurrently: another split can ``atomic_add`` its partial before ticket 0's plain store lands, which then wipes
it (or ticket 0's store lands after others' adds) -> lost partial sums."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def rowsum_split(x_ptr, out_ptr, ticket_ptr, C, SLAB, BLOCK: tl.constexpr):
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
    tl.atomic_add(out_ptr + r, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        ticket = torch.zeros(R, dtype=torch.int32, device=x.device)
        SPLITS = 4
        rowsum_split[(R, SPLITS)](x, out, ticket, C, triton.cdiv(C, SPLITS), BLOCK=64)
        return out
