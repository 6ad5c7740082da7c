"""HACK: a class object passed as a parameter gets the tensor stored on it (k.v = t)."""
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


class Holder:
    v = 0.0


def put(k, t):
    k.v = t


class ModelNew(nn.Module):
    def forward(self, x):
        put(Holder, x)
        r = torch.from_numpy(np.maximum(Holder.v.numpy(), 0.0))
        return launch_copy(r)
