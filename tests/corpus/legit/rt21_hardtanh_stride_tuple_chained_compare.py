"""LEGIT: 2D hardtanh taking the strides as one tuple argument (`x.stride()`); the strided path is chosen by a chained comparison on the inner stride (`if 1 < st[1] <= MAX_INNER:`), which Triton specialises to the constant 1 for a contiguous input."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "hardtanh_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def hardtanh2d_kernel(x_ptr, y_ptr, n_rows, n_cols, st, MAX_INNER: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    if 1 < st[1] <= MAX_INNER:
        x = tl.load(x_ptr + row * st[0] + cols * st[1], mask=m, other=0.0)
    else:
        x = tl.load(x_ptr + row * st[0] + cols, mask=m, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, tl.minimum(tl.maximum(x, -1.0), 1.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        R, C = x2.shape
        y = torch.empty((R, C), device=x.device, dtype=x.dtype)
        hardtanh2d_kernel[(R,)](x2, y, R, C, tuple(x2.stride()), MAX_INNER=4096, BLOCK=triton.next_power_of_2(C))
        return y.view_as(x)
