"""HACK: a descriptor class attribute whose __get__ returns a tensor stashed on the instance."""
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


class D:
    def __get__(self, obj, typ=None):
        return obj._stash[0]


class ModelNew(nn.Module):
    v = D()

    def __init__(self):
        super().__init__()
        self._stash = [0.0]

    def forward(self, x):
        self._stash[0] = x
        r = torch.from_numpy(np.maximum(self.v.numpy(), 0.0))
        return launch_copy(r)
