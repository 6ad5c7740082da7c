"""LEGIT: module-level `BLOCK_SIZE = tl.constexpr(512)` (the form Triton's own error message recommends for globals) passed as the constexpr launch argument; the host grid uses BLOCK_SIZE.value."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "hardtanh_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"

BLOCK_SIZE = tl.constexpr(512)


@triton.jit
def hardtanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x, -1.0), 1.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        hardtanh_kernel[(triton.cdiv(n, BLOCK_SIZE.value),)](x, y, n, BLOCK=BLOCK_SIZE)
        return y
