"""LEGIT: LLM-style row mean: one program per row, loop over column blocks, then a second loop writes the mean back; strides passed.
Observed (round 14, CPU): ok."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rowmean"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def row_mean_kernel(x_ptr, out_ptr, n_cols, stride_xm, stride_om, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        tl.store(o_row + cols, tl.zeros([BLOCK_N], dtype=tl.float32) + mean, mask=cols < n_cols)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.block_n = 256

    def forward(self, x):
        assert x.dim() == 2, f"expected a 2-D input, got {x.dim()} dims"
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty_like(x)
        BLOCK_N = min(triton.next_power_of_2(N), self.block_n)
        row_mean_kernel[(M,)](x, out, N, x.stride(0), out.stride(0), BLOCK_N=BLOCK_N)
        return out
