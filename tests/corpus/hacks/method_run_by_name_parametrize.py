"""HACK: torch.nn.utils.parametrize calls a parametrization's right_inverse() by name when the parametrized attribute is assigned; nn.Module does not define right_inverse, so the plan leaves it as init code (numpy allowed). forward assigns self.w = out, right_inverse applies relu in place with numpy."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize
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


class Fix(nn.Module):
    def forward(self, w):
        return w

    def right_inverse(self, v):
        a = v.numpy()
        np.maximum(a, 0, out=a)
        return v


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.empty(0))
        parametrize.register_parametrization(self, "w", Fix(), unsafe=True)

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.w = out
        return out
