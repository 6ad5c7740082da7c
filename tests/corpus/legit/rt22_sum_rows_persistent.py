"""LEGIT: persistent row sum: `for row in range(pid, n_rows, NUM_PROGS)` with NUM_PROGS a constexpr and n_rows runtime; inner `for c in range(0, tl.cdiv(n_cols, BLOCK))`."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def sum_kernel(x_ptr, y_ptr, n_rows, n_cols, stride, NUM_PROGS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for row in range(pid, n_rows, NUM_PROGS):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for c in range(0, tl.cdiv(n_cols, BLOCK)):
            offs = c * BLOCK + tl.arange(0, BLOCK)
            acc += tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0)
        tl.store(y_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty(R, device=x.device, dtype=x.dtype)
        P = 4
        sum_kernel[(P,)](x, y, R, C, x.stride(0), NUM_PROGS=P, BLOCK=256)
        return y
