"""LEGIT: row reduction then a second kernel that writes the dense broadcast output."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rowmean"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def rowmean_kernel(x_ptr, m_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + c, mask=c < n_cols, other=0.0)
    tl.store(m_ptr + row, tl.sum(x, axis=0) / n_cols)


@triton.jit
def bcast_kernel(m_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = tl.load(m_ptr + row)
    tl.store(out_ptr + row * n_cols + c, tl.zeros([BLOCK], dtype=tl.float32) + m, mask=c < n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        block = triton.next_power_of_2(cols)
        means = torch.empty(rows, device=x.device, dtype=torch.float32)
        out = torch.empty_like(x)
        rowmean_kernel[(rows,)](x, means, cols, BLOCK=block)
        bcast_kernel[(rows,)](means, out, cols, BLOCK=block)
        return out
