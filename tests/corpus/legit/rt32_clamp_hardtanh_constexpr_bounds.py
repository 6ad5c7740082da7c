"""LEGIT (round 32): hardtanh with ``tl.clamp`` and the bounds passed as ``tl.constexpr`` floats; 2-D launch
(row, column block) over a strided 2-D view. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "hardtanh_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def hardtanh_kernel(x_ptr, out_ptr, C, sx, so, LO: tl.constexpr, HI: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = cols < C
    x = tl.load(x_ptr + r * sx + cols, mask=m, other=0.0)
    tl.store(out_ptr + r * so + cols, tl.clamp(x, LO, HI), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        R, C = x2.shape
        out = torch.empty_like(x2)
        hardtanh_kernel[(R, triton.cdiv(C, 128))](x2, out, C, x2.stride(0), out.stride(0), LO=-1.0, HI=1.0,
                                                   BLOCK=128)
        return out.view(x.shape)
