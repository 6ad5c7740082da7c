"""LEGIT: softmax with one Triton launch per row from a Python loop over x.shape[0] (many launches, grid as a nested def)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def row_softmax(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    v = tl.load(x_ptr + offs, mask=mask, other=-float("inf"))
    v = v - tl.max(v, axis=0)
    e = tl.exp(v)
    tl.store(out_ptr + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape[0], x.shape[-1]
        block = triton.next_power_of_2(cols)

        def grid(meta):
            return (1,)

        for r in range(rows):
            row_softmax[grid](x[r], out[r], cols, BLOCK=block)
        return out
