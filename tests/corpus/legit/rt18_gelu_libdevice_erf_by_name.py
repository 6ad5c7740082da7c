"""LEGIT: exact GELU using erf imported by name from triton.language.extra.libdevice."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

from triton.language.extra.libdevice import erf

TASK = "gelu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = 0.5 * x * (1.0 + erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
