"""LEGIT: row sum; a `@triton.constexpr_function` helper computes the number of chunks from constexprs, used in `tl.static_range`; runtime mask per row."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.constexpr_function
def n_chunks(total, block):
    return (total + block - 1) // block


@triton.jit
def sum_kernel(x_ptr, y_ptr, n_cols, stride, MAXC: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c in tl.static_range(n_chunks(MAXC, BLOCK)):
        offs = c * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty(R, device=x.device, dtype=x.dtype)
        sum_kernel[(R,)](x, y, C, x.stride(0), MAXC=C, BLOCK=128)
        return y
