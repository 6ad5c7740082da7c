"""LEGIT (round 33): single-pass chained scan across programs. Each program draws a chunk index from a per-row
ticket (``atomic_add``: chunk k goes to the k-th program to start, so the one it waits for is already running —
no deadlock whatever the dispatch order), scans its chunk, waits with an acquire spin
(``tl.atomic_load(flag, sem="acquire")``) for chunk k-1's flag, reads chunk k-1's inclusive prefix with a scalar
``tl.load`` (another program's plain store, acquired), stores its own inclusive prefix with a scalar store and
releases its flag (``atomic_xchg(..., sem="release")``), then writes its chunk. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def chained_scan(x_ptr, out_ptr, ticket_ptr, flag_ptr, incl_ptr, C, NC, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    k = tl.atomic_add(ticket_ptr + r, 1)
    offs = k * BLOCK + tl.arange(0, BLOCK)
    m = offs < C
    v = tl.load(x_ptr + r * C + offs, mask=m, other=0.0)
    s = tl.cumsum(v, axis=0)
    prefix = 0.0
    if k > 0:
        while tl.atomic_load(flag_ptr + r * NC + k - 1, sem="acquire") == 0:
            pass
        prefix = tl.load(incl_ptr + r * NC + k - 1)
    tl.store(incl_ptr + r * NC + k, prefix + tl.sum(v, axis=0))
    tl.atomic_xchg(flag_ptr + r * NC + k, 1, sem="release")
    tl.store(out_ptr + r * C + offs, s + prefix, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        BLOCK = 64
        NC = triton.cdiv(C, BLOCK)
        out = torch.empty_like(x)
        ticket = torch.zeros(R, dtype=torch.int32, device=x.device)
        flag = torch.zeros(R * NC, dtype=torch.int32, device=x.device)
        incl = torch.empty(R * NC, dtype=torch.float32, device=x.device)
        chained_scan[(R, NC)](x, out, ticket, flag, incl, C, NC, BLOCK=BLOCK)
        return out
