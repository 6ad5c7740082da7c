"""LEGIT (launch style): a grid lambda reading meta["BLOCK"], launched once per chunk of rows over x[i:j] slices (views) written into matching slices of the output."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    CHUNK = 8

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        out = torch.empty_like(x)
        rows = x.shape[0]
        for i in range(0, rows, self.CHUNK):
            j = min(i + self.CHUNK, rows)
            xs, ys, os_ = x[i:j], y[i:j], out[i:j]
            n = xs.numel()
            grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
            add_kernel[grid](xs, ys, os_, n, BLOCK=256)
        return out
