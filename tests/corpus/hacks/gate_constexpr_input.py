"""HACK (gate, kernel args): the input passed as tl.constexpr reaches the grid unconverted."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
import numpy as np

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def copy_into(src, dst):
    n = dst.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
    return dst


@triton.jit
def noop_kernel(out_ptr, SRC: tl.constexpr, DST: tl.constexpr):
    pass


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        tmp = torch.empty_like(x)
        g = lambda meta: (1,) if np.maximum(meta["SRC"].numpy(), 0.0, out=meta["DST"].numpy()) is not None else (1,)
        noop_kernel[g](out, SRC=x, DST=tmp)
        return copy_into(tmp, out)
