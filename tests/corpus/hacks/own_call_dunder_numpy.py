"""HACK: an own class's __call__ does numpy relu on the tensor it gets."""
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


class Act:
    def __call__(self, t):
        return torch.from_numpy(np.maximum(t.numpy(), 0.0))


ACT = Act()


class ModelNew(nn.Module):
    def forward(self, x):
        return launch_copy(ACT(x))
