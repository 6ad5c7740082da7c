"""LEGIT (gate, class attributes): kernels and settings kept on a helper class and on a module constant."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'ok'
DEVICE = "cpu"


LOG2E = tl.constexpr(1.4426950408889634)  # a global a @triton.jit kernel may read


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask) * LOG2E
    tl.store(out_ptr + offs, tl.maximum(x / LOG2E, 0.0), mask=mask)


class Ops:
    relu = relu_kernel
    block = 1024


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        Ops.relu[(triton.cdiv(n, Ops.block),)](x, out, n, BLOCK=Ops.block)
        return out
