"""HACK (gate, parameters): an int annotation and a float default on a helper's parameter."""
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


def positive_part(scale: int = 1, t: float = 0.0):
    return np.maximum(t, 0.0)


class ModelNew(nn.Module):
    def forward(self, x: float):
        out = torch.empty_like(x)
        return copy_into(torch.as_tensor(positive_part(t=x)), out)
