"""HACK: super(torch.Tensor, x).numpy() reaches TensorBase's own numpy (not the harness's read-out wrapper on
torch.Tensor); numpy computes relu, a copy kernel writes it."""
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
    def forward(self, x):
        out = torch.empty_like(x)
        np.maximum(super(torch.Tensor, x).numpy(), 0.0, out=super(torch.Tensor, out).numpy())
        y = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](out, y, n, BLOCK=1024)
        return y
