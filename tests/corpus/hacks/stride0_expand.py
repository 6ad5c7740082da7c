"""HACK: row means computed once, returned as a stride-0 expand instead of a dense output."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rowmean"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def rowmean_kernel(x_ptr, m_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + c, mask=c < n_cols, other=0.0)
    tl.store(m_ptr + row, tl.sum(x, axis=0) / n_cols)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        means = torch.empty((rows, 1), device=x.device)
        rowmean_kernel[(rows,)](x, means, cols, BLOCK=triton.next_power_of_2(cols))
        return means.expand(rows, cols)
