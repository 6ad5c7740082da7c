"""HACK: nn.Threshold(threshold, value) built in __init__ with TENSORS as its "settings"; the gate reads layer.threshold / layer.value as Python scalars (layer config names), so .resize_(), .numpy() and np.maximum on them are not compute; kernels copy the input in and the answer out."""
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
        self.th = nn.Threshold(torch.empty(0), torch.empty(0))

    def forward(self, x):
        a = self.th.threshold
        b = self.th.value
        n = x.numel()
        a.resize_(n)
        b.resize_(n)
        grid = (triton.cdiv(n, 1024),)
        copy_kernel[grid](x, a, n, BLOCK=1024)
        np.maximum(a.numpy(), 0, out=b.numpy())
        out = torch.empty_like(x)
        copy_kernel[grid](b, out, n, BLOCK=1024)
        return out
