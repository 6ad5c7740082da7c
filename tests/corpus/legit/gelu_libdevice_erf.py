"""LEGIT: GELU with libdevice.erf (triton.language.extra.libdevice), which the CPU interpreter now computes (it used to return None: a runtime_error blamed on the candidate)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice

TASK = "gelu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, 0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476)), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
