"""LEGIT: rsqrt with a parenthesised ternary assignment split over lines, the untaken arm (precise path) alone on the last line: `y = (tl.rsqrt(x)` / `if FAST` / `else 1.0 / tl.sqrt_rn(x))`."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rsqrt_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def rsqrt_kernel(x_ptr, y_ptr, n, FAST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = (tl.rsqrt(x)
         if FAST
         else 1.0 / tl.sqrt_rn(x))
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        xf = x.contiguous().view(-1)
        out = torch.empty_like(xf)
        n = xf.numel()
        rsqrt_kernel[(triton.cdiv(n, 1024),)](xf, out, n, FAST=True, BLOCK=1024)
        return out.view_as(x)
