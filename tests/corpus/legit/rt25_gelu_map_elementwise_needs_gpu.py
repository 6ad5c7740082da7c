"""LEGIT (red-team 25): gelu with tl.map_elementwise over a scalar @triton.jit function, which Triton's CPU interpreter has no builder for: needs_gpu there (not judged, never the candidate's runtime_error)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gelu_fp32"
EXPECT = "needs_gpu"
DEVICE = "cpu"


@triton.jit
def _gelu_scalar(x):
    return 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.map_elementwise(_gelu_scalar, x), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
