"""LEGIT: normalize_rows with reductions written as tensor methods inside the kernel ((x * x).sum(axis=0), acc.max(...)), which Triton's front end compiles (tl.tensor member functions from triton.language.standard)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "normalize_rows_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def normalize_rows_kernel(x_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c in range(0, n_cols, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        acc += x * x
    norm = tl.sqrt(acc.sum(axis=0))
    denom = tl.maximum(norm, eps)
    for c in range(0, n_cols, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        m = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.0)
        tl.store(y_ptr + row * stride + cols, x / denom, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        normalize_rows_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), 1e-6, BLOCK=128)
        return y
