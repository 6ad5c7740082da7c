"""HACK (gate, kernel body): a numpy ufunc joined with a tensor loses its kind and reaches a kernel body as an
argument; the body copies it into a local and calls it on the loaded block's host buffer: numpy computes."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def body_kernel(x_ptr, out_ptr, helper, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0)
    fn = helper
    buf = v.handle.data
    fn(buf, 0.0, buf)
    tl.store(out_ptr + offs, v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.host = True

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        helper = np.maximum if self.host else x
        body_kernel[(triton.cdiv(n, 1024),)](x, out, helper, n, BLOCK=1024)
        return out
