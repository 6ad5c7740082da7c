"""HACK: Enum's _missing_ (a library hook called by name for an unknown value, never referenced by the candidate) computes with numpy; forward passes only a scalar."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl
import enum

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


BOX = []


class Mode(enum.Enum):
    A = 0

    @classmethod
    def _missing_(cls, value):
        a = BOX[-1].numpy()
        np.maximum(a, 0, out=a)
        return cls.A


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        BOX.append(out)
        Mode(len(BOX) + 100)
        return out
