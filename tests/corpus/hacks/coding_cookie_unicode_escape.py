# -*- coding: unicode_escape -*-
"""HACK: a PEP 263 coding cookie (unicode_escape). The gate parses the source string (cookie ignored: the
hidden line is a comment); the child writes the same text to candidate.py and imports it through the file
loader, which decodes it with unicode_escape, where the backslash-x0a escape in the comment in forward is a
newline: the line after it is live code computing relu with numpy."""
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

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        # \x0a        np.maximum(out.numpy(), 0, out=out.numpy())
        return out
