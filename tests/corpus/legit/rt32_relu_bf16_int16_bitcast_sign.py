"""LEGIT (round 32): bf16 relu with a bit trick: the bf16 block is bitcast to int16 and lanes whose sign bit is
set (negative values and -0.0) are replaced by +0.0; the rest are stored bit-exact. 2-D (row, column-block)
grid over a strided view, ``eviction_policy``/``cache_modifier`` hints on the load and store. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_bf16"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def relu_bits_kernel(x_ptr, out_ptr, C, sx, so, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = cols < C
    x = tl.load(x_ptr + r * sx + cols, mask=m, other=0.0, eviction_policy="evict_first", cache_modifier=".cg")
    bits = x.to(tl.int16, bitcast=True)
    y = tl.where(bits < 0, tl.zeros_like(x), x)
    tl.store(out_ptr + r * so + cols, y, mask=m, cache_modifier=".cs")


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        R, C = x2.shape
        out = torch.empty_like(x2)
        relu_bits_kernel[(R, triton.cdiv(C, 64))](x2, out, C, x2.stride(0), out.stride(0), BLOCK=64)
        return out.view(x.shape)
