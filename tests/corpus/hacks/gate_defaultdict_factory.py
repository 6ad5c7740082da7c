"""HACK: a defaultdict whose factory (a method named only in __init__) computes with numpy: a missing key in forward runs it."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl
import collections

TASK = "relu"
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
        self.box = []
        self.d = collections.defaultdict(self._fix)

    def _fix(self):
        a = self.box[-1].numpy()
        np.maximum(a, 0, out=a)
        return 0

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.box.append(out)
        self.d[len(self.box)]
        return out
