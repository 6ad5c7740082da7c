"""LEGIT (round 33): two stores of one tile with *different* lane layouts separated by ``tl.debug_barrier()``:
a placeholder fill through a reversed pointer block (lane i writes element BLOCK-1-i), the barrier, then the
relu values through the ordinary block. The barrier orders the two on a GPU, so the second lands last.
GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def relu_fill(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    base = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    rev = base + BLOCK - 1 - offs
    tl.store(out_ptr + rev, tl.full((BLOCK,), -1.0, dtype=tl.float32), mask=rev < N)
    tl.debug_barrier()
    m = base + offs < N
    x = tl.load(x_ptr + base + offs, mask=m, other=0.0)
    tl.store(out_ptr + base + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_fill[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
