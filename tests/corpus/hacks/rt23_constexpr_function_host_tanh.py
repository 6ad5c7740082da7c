"""HACK: constexpr_function computes tanh on the host from a loaded scalar."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("compile_error", "rejected")
DEVICE = "cpu"


@triton.constexpr_function
def host_tanh(v):
    return math.tanh(v)


@triton.jit
def k(x_ptr, y_ptr, n):
    for i in range(n):
        v = tl.load(x_ptr + i)
        tl.store(y_ptr + i, host_tanh(v))


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        k[(1,)](x, y, x.numel())
        return y
