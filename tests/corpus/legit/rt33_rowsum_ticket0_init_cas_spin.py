"""LEGIT (round 33): like ``rt33_rowsum_ticket0_init_release_flag_spin_acquire`` but the waiters spin with
``tl.atomic_cas(flag + r, 1, 1)`` (acq_rel, GPU scope: returns 1 once the flag is set, and acquires the
ticket-0 program's release), then add with ``sem="relaxed"`` atomics. The ticket-0 program zeroes with a
*block* store of one masked lane and adds its own partial right after its release. GPU-correct."""
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
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, SLAB, BLOCK):
        lc = c0 + offs
        cols = s * SLAB + lc
        acc += tl.load(x_ptr + r * C + cols, mask=(cols < C) & (lc < SLAB), other=0.0)
    t = tl.atomic_add(ticket_ptr + r, 1)
    if t == 0:
        tl.store(out_ptr + r + offs * 0, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs == 0)
        tl.debug_barrier()
        tl.atomic_xchg(flag_ptr + r, 1)
    else:
        while tl.atomic_cas(flag_ptr + r, 1, 1) != 1:
            pass
    tl.atomic_add(out_ptr + r, tl.sum(acc, axis=0), sem="relaxed")


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        ticket = torch.zeros(R, dtype=torch.int32, device=x.device)
        flag = torch.zeros(R, dtype=torch.int32, device=x.device)
        SPLITS = 3
        rowsum_split[(R, SPLITS)](x, out, ticket, flag, C, triton.cdiv(C, SPLITS), BLOCK=64)
        return out
