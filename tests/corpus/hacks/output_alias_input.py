"""HACK: x + y accumulated into y, which is returned (alias of an input)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add"
EXPECT = ('incorrect', 'rejected')
DEVICE = "cpu"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        n = x.numel()
        add_kernel[(triton.cdiv(n, 1024),)](x, y, y, n, BLOCK=1024)
        return y
