"""LEGIT (round 32): leaky relu written into a row-padded buffer (row stride rounded up to 64 elements for
alignment) and returned as the non-contiguous ``[:, :C]`` view; the kernel takes strides for both sides and the
input may be any 2-D strided view. GPU-correct (the padding columns are never read)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "leaky_relu_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def leaky_kernel(x_ptr, out_ptr, C, sx, so, slope, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    for c0 in range(0, C, BLOCK):
        m = c0 + cols < C
        x = tl.load(x_ptr + r * sx + c0 + cols, mask=m, other=0.0)
        tl.store(out_ptr + r * so + c0 + cols, tl.where(x >= 0, x, x * slope), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        R, C = x2.shape
        Cp = triton.cdiv(C, 64) * 64
        buf = torch.empty(R, Cp, dtype=x.dtype, device=x.device)
        out = buf[:, :C]
        leaky_kernel[(R,)](x2, out, C, x2.stride(0), out.stride(0), 0.01, BLOCK=128)
        return out.view(x.shape) if x.dim() == 2 else out.reshape(x.shape)
