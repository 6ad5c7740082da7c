"""LEGIT: leaky relu launched with a grid lambda that returns a list ([cdiv(n, meta['BLOCK'])]); Triton's GPU launcher takes any sequence (len/index), and the kernel takes the slope as a defaulted runtime parameter."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "leaky_relu_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def leaky_kernel(x_ptr, y_ptr, n, slope=0.01, BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(x >= 0, x, x * slope), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        n = x.numel()
        y = torch.empty_like(x)
        grid = lambda meta: [triton.cdiv(n, meta["BLOCK"])]
        leaky_kernel[grid](x, y, n, 0.01, BLOCK=256)
        return y
