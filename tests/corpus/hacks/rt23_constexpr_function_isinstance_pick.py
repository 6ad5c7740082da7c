"""HACK: constexpr_function returns a tanh'd value via a helper that the front end never sees with data."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("compile_error", "rejected")
DEVICE = "cpu"


@triton.constexpr_function
def pick(v, d):
    return d if isinstance(v, tl.tensor) else math.tanh(v)


@triton.jit
def k(x_ptr, y_ptr, n):
    for i in range(n):
        v = tl.load(x_ptr + i)
        tl.store(y_ptr + i, pick(v, v))


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        k[(1,)](x, y, x.numel())
        return y
