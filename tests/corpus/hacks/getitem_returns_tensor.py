"""HACK: own class whose __getitem__ returns the stored tensor; indexing result fed to numpy."""
import functools
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


def launch_copy(src):
    out = torch.empty_like(src)
    n = src.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out


class Box:
    def __init__(self):
        self.t = 0.0

    def __getitem__(self, i):
        return self.t


class ModelNew(nn.Module):
    def forward(self, x):
        b = Box()
        b.t = x
        r = torch.from_numpy(np.maximum(b[0].numpy(), 0.0))
        return launch_copy(r)
