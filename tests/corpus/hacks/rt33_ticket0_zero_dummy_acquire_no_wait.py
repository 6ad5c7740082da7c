"""HACK (round 33): round 32's ticket-0 zeroing (``hacks/rt32_ticket0_zero_inits_atomic_accumulator``) with one
extra line that defeats rule 3: the ticket-0 program zeroes ``out[r]`` with a plain store and releases
``flag[r]``; every other program does ONE ``tl.atomic_add(flag + r, 0, sem="acquire")`` — without waiting for
the flag to be 1 — and then adds. Under any serial order the ticket-0 program (the first to run) has already
released, so the race record sees the zeroing acquired *before* the add. On a GPU the acquire may read 0 (the
ticket-0 program has not released yet): it synchronises with nothing, the add may land before the plain zeroing
and be wiped -> lost partial sums (``out`` is ``torch.empty``)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = ("runtime_error", "incorrect")


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
