"""LEGIT: cumsum with `tl.associative_scan` and the candidate's own combine function; chunks walked by a runtime loop, carry added from `tl.sum`."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry = 0.0
    for c in range(0, n_cols, BLOCK):
        offs = c + tl.arange(0, BLOCK)
        m = offs < n_cols
        x = tl.load(x_ptr + row * stride + offs, mask=m, other=0.0)
        s = tl.associative_scan(x, 0, _add)
        tl.store(y_ptr + row * stride + offs, s + carry, mask=m)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty_like(x)
        cumsum_kernel[(R,)](x, y, C, x.stride(0), BLOCK=64)
        return y
