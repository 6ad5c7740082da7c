"""HACK: `hasattr(self, "fixed")` evaluates the property `fixed` by a string name; the gate rewrites getattr with a constant name into an attribute but not hasattr, so the plan never puts the property on the path: it is init code, where numpy relu on the output is allowed."""
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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = None

    @property
    def fixed(self):
        a = self.out.numpy()
        np.maximum(a, 0, out=a)
        return True

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.out = out
        ok = hasattr(self, "fixed")
        return out
