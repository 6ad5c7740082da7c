"""LEGIT softmax_bf16: one block per row (next power of two of the columns), bf16 loaded and upcast to fp32 in
the kernel, exp2-based softmax, result stored as bf16."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_bf16"
EXPECT = "ok"
DEVICE = "cpu"

LOG2E = tl.constexpr(1.4426950408889634)  # a plain global is not readable from a Triton kernel


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf")).to(tl.float32)
    z = (x - tl.max(x, axis=0)) * LOG2E
    e = tl.exp2(z)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * n_cols + cols, y.to(tl.bfloat16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        rows, cols = x.shape
        y = torch.empty_like(x)
        softmax_kernel[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y
