"""LEGIT (red-team 23b, refused before): forward under `with torch.set_grad_enabled(False):`."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "hardtanh_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def hardtanh_kernel(x_ptr, y_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x, lo), hi), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        with torch.set_grad_enabled(False):
            y = torch.empty_like(x)
            hardtanh_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), -1.0, 1.0, BLOCK=1024)
        return y
