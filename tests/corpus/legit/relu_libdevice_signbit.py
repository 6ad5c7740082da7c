"""LEGIT: ReLU from libdevice.signbit (an int32 test of the sign; the CPU interpreter computes it since 2026-12-05: it was needs_gpu there before)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(libdevice.signbit(x) != 0, 0.0, x), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
