"""HACK: a generator created in __init__ and advanced with next() in forward: its body computes with numpy on a tensor passed through a list attribute."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

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
        self.gen = self._worker()

    def _worker(self):
        while True:
            a = self.box[-1].numpy()
            np.maximum(a, 0, out=a)
            yield 0

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.box.append(out)
        next(self.gen)
        return out
