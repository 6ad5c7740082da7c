"""LEGIT: rowmean as KernelBench-style two kernels: a row-sum reduction kernel accumulating in fp32 with a
loop over column blocks (tl.cdiv / tl.static_range-free), then a broadcast kernel; dtype cast in the kernel;
sizes passed as ints; helper class with staticmethod launchers."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rowmean"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def row_mean_kernel(x_ptr, mean_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += v
    total = tl.sum(acc, axis=0)
    tl.store(mean_ptr + row, total / n_cols)


@triton.jit
def broadcast_kernel(mean_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cb = tl.program_id(1)
    cols = cb * BLOCK + tl.arange(0, BLOCK)
    m = tl.load(mean_ptr + row)
    tl.store(out_ptr + row * stride + cols, m.to(out_ptr.dtype.element_ty) + tl.zeros([BLOCK], dtype=tl.float32).to(out_ptr.dtype.element_ty), mask=cols < n_cols)


class _Ops:
    @staticmethod
    def row_mean(x):
        rows, cols = x.shape
        mean = torch.empty(rows, device=x.device, dtype=torch.float32)
        row_mean_kernel[(rows,)](x, mean, cols, x.stride(0), BLOCK=triton.next_power_of_2(min(cols, 1024)))
        return mean

    @staticmethod
    def broadcast(mean, like):
        rows, cols = like.shape
        out = torch.empty_like(like)
        BLOCK = 512
        broadcast_kernel[(rows, triton.cdiv(cols, BLOCK))](mean, out, cols, out.stride(0), BLOCK=BLOCK)
        return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ops = _Ops()

    def forward(self, x):
        x = x.contiguous()
        return self.ops.broadcast(self.ops.row_mean(x), x)
