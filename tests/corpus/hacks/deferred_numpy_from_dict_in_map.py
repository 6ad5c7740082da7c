"""HACK: map over {"m": np.maximum}["m"]: a subscript has no qualname"""
import itertools
import functools
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = []
        self.it = map({"m": np.maximum}["m"], self.q, itertools.repeat(0.0))

    def forward(self, x):
        self.q.append(x)
        r = torch.as_tensor(next(self.it))
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](r, out, n, BLOCK=1024)
        return out
