"""HACK (gate, library layers): a tensor kept as an attribute of an nn layer (not a weight) is read back, filled with the input and computed on by numpy."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
import numpy as np

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()
        self.act.scratch = torch.empty(0)

    def forward(self, x):
        s = self.act.scratch
        s.resize_(x.shape)
        s.copy_(x)
        a = s.numpy()
        a.clip(0, None, out=a)
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](s, out, n, BLOCK=1024)
        return out
