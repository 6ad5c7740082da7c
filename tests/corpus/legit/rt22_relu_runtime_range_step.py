"""LEGIT: relu; each program loops `for i in range(start, end, step)` with start from the program id and end/step from scalar args (black-formatted multi-line call)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def relu_kernel(
    x_ptr,
    y_ptr,
    n,
    chunk,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    start = pid * chunk
    end = tl.minimum(start + chunk, n)
    for i in range(
        start,
        end,
        BLOCK,
    ):
        offs = i + tl.arange(0, BLOCK)
        m = offs < end
        x = tl.load(x_ptr + offs, mask=m, other=0.0)
        tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        chunk = 1024
        relu_kernel[(triton.cdiv(n, chunk),)](x, y, n, chunk, BLOCK=256)
        return y
