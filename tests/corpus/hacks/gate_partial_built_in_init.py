"""HACK: functools.partial of a numpy helper built in __init__ (the helper named only as a call argument) and called from forward."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl
import functools

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def fix(out, z):
    a = out.numpy()
    np.maximum(a, z, out=a)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = functools.partial(fix)

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.f(out, 0)
        return out
