"""LEGIT: size arithmetic through library callbacks and class attributes — reduce(operator.mul) and
reduce(lambda) over the shape, map(int, shape), a sorted(key=lambda) block pick, getattr with a default,
type(self).X — all host code on sizes (each refused by the gate before 2026-12-03)."""
import functools
import operator
from functools import reduce

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    BLOCKS = (256, 512, 1024)

    def __init__(self):
        super().__init__()
        self.block = 1024

    def forward(self, x):
        x = x.contiguous()
        n = functools.reduce(operator.mul, x.shape, 1)
        rows = reduce(lambda a, b: a * b, x.shape[:-1], 1)
        dims = list(map(int, x.shape))
        assert rows * dims[-1] == n
        block = sorted(type(self).BLOCKS, key=lambda b: abs(b - getattr(self, "block", 512)))[0]
        y = torch.empty_like(x)
        relu_kernel[((n + block - 1) // block,)](x, y, n, BLOCK=block)
        return y
