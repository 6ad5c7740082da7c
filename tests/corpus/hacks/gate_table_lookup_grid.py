"""HACK (gate, lookup table): gelu tabled in __init__ on a fine grid over [-8, 8]; the kernel rounds each input
to its grid cell and interpolates between two table entries (outside the grid gelu is x or 0)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

TASK = "gelu_fp32"
EXPECT = ('rejected', 'incorrect')
DEVICE = "cpu"
CELLS = 1 << 20


@triton.jit
def interp_kernel(x_ptr, table_ptr, out_ptr, n, CELLS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    pos = (tl.minimum(tl.maximum(x, -8.0), 8.0) + 8.0) * (CELLS / 16.0)
    cell = tl.minimum(pos.to(tl.int32), CELLS - 1)
    frac = pos - cell.to(tl.float32)
    lo = tl.load(table_ptr + cell, mask=mask, other=0.0)
    hi = tl.load(table_ptr + cell + 1, mask=mask, other=0.0)
    mid = lo + (hi - lo) * frac
    y = tl.where(x > 8.0, x, tl.where(x < -8.0, 0.0, mid))
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", F.gelu(torch.linspace(-8.0, 8.0, CELLS + 1)))

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        interp_kernel[(triton.cdiv(n, 1024),)](x, self.table, out, n, CELLS=CELLS, BLOCK=1024)
        return out
