"""HACK (gate, array library): |x| from numpy.prod and numpy.sqrt (once listed safe) on the input, a kernel halves x + |x|."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
import numpy as np

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"



@triton.jit
def half_sum_kernel(x_ptr, a_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    a = tl.load(a_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x + a) * 0.5, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        mag = torch.as_tensor(np.sqrt(np.prod([x, x], axis=0)))
        n = x.numel()
        half_sum_kernel[(triton.cdiv(n, 1024),)](x, mag, out, n, BLOCK=1024)
        return out
