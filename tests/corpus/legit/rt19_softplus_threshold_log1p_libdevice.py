"""LEGIT: softplus (beta 1, threshold 20) using libdevice.log1p via `from triton.language.extra import libdevice`, and a numerically stable form."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice

TASK = "softplus_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def softplus_kernel(x_ptr, y_ptr, n, threshold, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    sp = tl.maximum(x, 0.0) + libdevice.log1p(tl.exp(-tl.abs(x)))
    tl.store(y_ptr + offs, tl.where(x > threshold, x, sp), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        softplus_kernel[(triton.cdiv(n, 1024),)](x, y, n, 20.0, BLOCK=1024)
        return y
