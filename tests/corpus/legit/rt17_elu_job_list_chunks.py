"""LEGIT: ELU launched over row chunks described by a list of (src, dst, n) job tuples unpacked in a for loop."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "elu_fp32"
EXPECT = "ok"
DEVICE = "cpu"

ROWS_PER_CHUNK = 8


@triton.jit
def elu_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.where(x > 0, x, alpha * (tl.exp(x) - 1.0)), mask=m)


class ModelNew(nn.Module):
    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        jobs = []
        for r0 in range(0, x.shape[0], ROWS_PER_CHUNK):
            src = x[r0:r0 + ROWS_PER_CHUNK]
            dst = out[r0:r0 + ROWS_PER_CHUNK]
            jobs.append((src, dst, src.numel()))
        for src, dst, n in jobs:
            elu_kernel[(triton.cdiv(n, 1024),)](src, dst, n, self.alpha, BLOCK=1024)
        return out
