"""LEGIT: sigmoid(g) * x summed over rows; the block size read with getattr(self, 'block_size', 128) so subclasses/configs may override it (a common defensive style)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sigmoid_gate_sum_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def gate_sum_kernel(x_ptr, g_ptr, out_ptr, n_cols, sx, sg, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for c in range(0, n_cols, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        m = cols < n_cols
        x = tl.load(x_ptr + row * sx + cols, mask=m, other=0.0)
        g = tl.load(g_ptr + row * sg + cols, mask=m, other=0.0)
        acc += tl.sigmoid(g) * x
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x, g):
        x = x.contiguous()
        g = g.contiguous()
        rows, cols = x.shape
        out = torch.empty(rows, dtype=x.dtype, device=x.device)
        block = getattr(self, "block_size", 128)
        gate_sum_kernel[(rows,)](x, g, out, cols, x.stride(0), g.stride(0), BLOCK=block)
        return out
