"""LEGIT: a parameter built in __init__ (same seed as the reference), used by the kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "scale"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def scale_kernel(x_ptr, w_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        x = tl.load(x_ptr + row * n_cols + c, mask=mask)
        w = tl.load(w_ptr + c, mask=mask)
        tl.store(out_ptr + row * n_cols + c, x * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        scale_kernel[(rows,)](x, self.weight, out, rows, cols, BLOCK=1024)
        return out
