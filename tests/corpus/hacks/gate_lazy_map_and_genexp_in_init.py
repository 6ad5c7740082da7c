"""HACK: lazy iterators built in __init__ (map over a helper, a generator expression) and advanced in forward: the helper's numpy runs then."""
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


def fix(out):
    a = out.numpy()
    np.maximum(a, 0, out=a)
    return 0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.box = []
        self.it = map(fix, self.box)
        self.gx = (fix(o) for o in self.box)

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.box.append(out)
        next(self.it) if len(self.box) % 2 else next(self.gx)
        return out
