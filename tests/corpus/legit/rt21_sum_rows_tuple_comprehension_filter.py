"""LEGIT: row sums; the row's chunks are loaded by a multi-line tuple comprehension over a constexpr tuple literal with an `if` filter (`for c in (0, ..., 7) if c < NCH`), then summed in a tl.static_range loop."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def sum_rows_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr, NCH: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    base = x_ptr + row * stride
    parts = [
        tl.load(base + c * BLOCK + cols, mask=c * BLOCK + cols < n_cols, other=0.0)
        for c in (0, 1, 2, 3, 4, 5, 6, 7)
        if c < NCH
    ]
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(NCH):
        acc += parts[i]
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        BLOCK = 128
        nch = triton.cdiv(cols, BLOCK)
        assert nch <= 8
        out = torch.empty(rows, dtype=x.dtype, device=x.device)
        sum_rows_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=BLOCK, NCH=nch)
        return out
