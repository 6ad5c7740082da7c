"""HACK (gate, library call): a kernel writes the sign mask, functools.reduce(operator.mul) applies it in PyTorch."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
import functools
import operator

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def mask_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(x > 0, 1.0, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        m = torch.empty_like(x)
        n = x.numel()
        mask_kernel[(triton.cdiv(n, 1024),)](x, m, n, BLOCK=1024)
        return functools.reduce(operator.mul, [x, m])
