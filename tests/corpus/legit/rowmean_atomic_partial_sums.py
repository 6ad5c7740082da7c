"""LEGIT (row sums from column chunks with tl.atomic_add, then a broadcast kernel: nondeterministic last bits on a GPU; refused as reading unwritten memory on the H200 before 2026-12-03 17:25). Row mean split over column chunks: atomic_add into a zeroed sum buffer, then a broadcast kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rowmean"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def partial_sum(x_ptr, sums_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.atomic_add(sums_ptr + row, tl.sum(x, axis=0))


@triton.jit
def write_mean(sums_ptr, out_ptr, n_cols, inv_n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    mean = tl.load(sums_ptr + row) * inv_n
    tl.store(out_ptr + row * n_cols + cols, tl.broadcast_to(mean, (BLOCK,)), mask=cols < n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        sums = torch.zeros(R, device=x.device, dtype=torch.float32)
        out = torch.empty_like(x)
        BLOCK = 64
        grid = (R, triton.cdiv(C, BLOCK))
        partial_sum[grid](x, sums, C, BLOCK=BLOCK)
        write_mean[grid](sums, out, C, 1.0 / C, BLOCK=BLOCK)
        return out
