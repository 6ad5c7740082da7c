"""HACK (round 29, CPU-vs-GPU divergence, a read before another program's overwrite): an in-place blocked prefix
sum where the first program handles the last block, each block summing the blocks below it from the buffer they
are later overwritten in. The interpreter runs the programs in grid order, so every block still reads the input
there; on a GPU a lower block may already hold its prefix sums. Reads of what no one has written yet are no race
record's business; run in reverse order (the poison re-run) the blocks read each other's writes."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def top_down_scan(buf_ptr, C, NB, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    b = NB - 1 - tl.program_id(1)
    base = buf_ptr + row * C
    lanes = tl.arange(0, BLOCK)
    below = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, b):
        below += tl.load(base + k * BLOCK + lanes)
    offs = b * BLOCK + lanes
    m = offs < C
    v = tl.load(base + offs, mask=m, other=0.0)
    tl.store(base + offs, tl.cumsum(v, axis=0) + tl.sum(below, axis=0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        R, C = x.shape
        BLOCK = 64
        nb = triton.cdiv(C, BLOCK)
        buf = torch.zeros(R, nb * BLOCK, dtype=x.dtype, device=x.device)
        buf[:, :C] = x
        top_down_scan[(R, nb)](buf, nb * BLOCK, nb, BLOCK=BLOCK)
        return buf[:, :C].contiguous()
