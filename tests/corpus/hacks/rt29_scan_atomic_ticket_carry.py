"""HACK (round 29, CPU-vs-GPU divergence through atomics alone): a single-pass blocked prefix sum whose block b
takes its carry from ``tl.atomic_add(running[row], block_total)``: the old value is the sum of the blocks whose
atomics came first. The interpreter runs blocks in grid order, so that is blocks 0..b-1 and the answer is right;
on a GPU the blocks' atomics land in any order. Only atomics meet, so no race record sees it; the poison re-run
with every launch's programs in reverse order does."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "incorrect"


@triton.jit
def ticket_scan(x_ptr, out_ptr, run_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    b = tl.program_id(1)
    offs = b * BLOCK + tl.arange(0, BLOCK)
    m = offs < C
    v = tl.load(x_ptr + row * C + offs, mask=m, other=0.0)
    carry = tl.atomic_add(run_ptr + row, tl.sum(v, axis=0))
    tl.store(out_ptr + row * C + offs, tl.cumsum(v, axis=0) + carry, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty_like(x)
        running = torch.zeros(R, dtype=x.dtype, device=x.device)
        BLOCK = 64
        ticket_scan[(R, triton.cdiv(C, BLOCK))](x, out, running, C, BLOCK=BLOCK)
        return out
