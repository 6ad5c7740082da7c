"""HACK (gate, aliased getattr): getattr rebound to another name, computed attribute name."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


fetch = getattr


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return fetch(x, 're' + 'lu')()
