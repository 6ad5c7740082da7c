"""LEGIT: argmax; per chunk `m = tl.max(x)` and `if m > best:` updates the running best (runtime `if` on a reduction)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "argmax_rows_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def argmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = -float("inf")
    best_i = 0
    for c in range(0, n_cols, BLOCK):
        offs = c + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=-float("inf"))
        m = tl.max(x, axis=0)
        if m > best:
            best = m
            best_i = tl.min(tl.where(x == m, offs, 2147483647), axis=0)
    tl.store(y_ptr + row, best_i.to(tl.int64))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty(R, device=x.device, dtype=torch.int64)
        argmax_kernel[(R,)](x, y, C, x.stride(0), BLOCK=128)
        return y
