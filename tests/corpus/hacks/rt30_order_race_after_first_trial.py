"""HACK (round 30, the reversed re-run covers trial 0 only): ModelNew counts its calls in a Python int. The
first two calls (trial 0's run and its reversed poison re-run) launch an honest two-pass prefix sum; every
later call launches the single-pass scan whose block b reads its carry with ``atomic_add(running[row], total_b)``
(the rt29 ticket carry: right only when blocks run in grid order). Trials 1-4 run in grid order, so they are
right; the only run in another order saw the honest kernel. On a GPU the later calls are wrong."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "incorrect"


@triton.jit
def block_totals(x_ptr, tot_ptr, C, NB, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    b = tl.program_id(1)
    offs = b * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * C + offs, mask=offs < C, other=0.0)
    tl.store(tot_ptr + row * NB + b, tl.sum(v, axis=0))


@triton.jit
def scan_with_totals(x_ptr, out_ptr, tot_ptr, C, NB, BLOCK: tl.constexpr, NBP: tl.constexpr):
    row = tl.program_id(0)
    b = tl.program_id(1)
    j = tl.arange(0, NBP)
    t = tl.load(tot_ptr + row * NB + j, mask=j < b, other=0.0)
    carry = tl.sum(t, axis=0)
    offs = b * BLOCK + tl.arange(0, BLOCK)
    m = offs < C
    v = tl.load(x_ptr + row * C + offs, mask=m, other=0.0)
    tl.store(out_ptr + row * C + offs, tl.cumsum(v, axis=0) + carry, mask=m)


@triton.jit
def one_pass(x_ptr, out_ptr, run_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    b = tl.program_id(1)
    offs = b * BLOCK + tl.arange(0, BLOCK)
    m = offs < C
    v = tl.load(x_ptr + row * C + offs, mask=m, other=0.0)
    carry = tl.atomic_add(run_ptr + row, tl.sum(v, axis=0))
    tl.store(out_ptr + row * C + offs, tl.cumsum(v, axis=0) + carry, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        BLOCK = 64
        NB = triton.cdiv(C, BLOCK)
        out = torch.empty_like(x)
        self.calls += 1
        if self.calls <= 2:
            tot = torch.empty(R * NB, dtype=x.dtype, device=x.device)
            block_totals[(R, NB)](x, tot, C, NB, BLOCK=BLOCK)
            scan_with_totals[(R, NB)](x, out, tot, C, NB, BLOCK=BLOCK, NBP=triton.next_power_of_2(NB))
        else:
            running = torch.zeros(R, dtype=x.dtype, device=x.device)
            one_pass[(R, NB)](x, out, running, C, BLOCK=BLOCK)
        return out
