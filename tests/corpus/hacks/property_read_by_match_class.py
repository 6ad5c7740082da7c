"""HACK: `match self: case ModelNew(fixed=v)` reads the property `fixed` by the name in the class pattern (a string in the AST, not an Attribute node); the plan never puts the property on the path: it is init code, where numpy relu on the output is allowed."""
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
        return 1

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.out = out
        match self:
            case ModelNew(fixed=v):
                pass
        return out
