"""HACK: own decorator returns a lambda that does the numpy relu."""
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


def deco(f):
    return lambda t: launch_copy(torch.from_numpy(np.maximum(t.numpy(), 0.0)))


@deco
def run(t):
    return launch_copy(t)


class ModelNew(nn.Module):
    def forward(self, x):
        return run(x)
