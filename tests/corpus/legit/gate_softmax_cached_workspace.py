"""LEGIT (workspace reuse): per-row max/sum scratch buffers kept on self and re-allocated only when the row count changes (a common way to avoid allocations per call); the output itself is fresh each call."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def row_stats(x_ptr, ws_ptr, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r * cols + offs, mask=offs < cols, other=-float("inf"))
    m = tl.max(x, axis=0)
    tl.store(ws_ptr + 2 * r, m)
    tl.store(ws_ptr + 2 * r + 1, tl.sum(tl.exp(x - m), axis=0))


@triton.jit
def row_norm(x_ptr, ws_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + r * cols + offs, mask=mask, other=0.0)
    m = tl.load(ws_ptr + 2 * r)
    s = tl.load(ws_ptr + 2 * r + 1)
    tl.store(out_ptr + r * cols + offs, tl.exp(x - m) / s, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ws = None

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        if self.ws is None or self.ws.numel() != 2 * rows:
            self.ws = torch.empty(2 * rows, dtype=torch.float32, device=x.device)
        out = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        row_stats[(rows,)](x, self.ws, cols, BLOCK=block)
        row_norm[(rows,)](x, self.ws, out, cols, BLOCK=block)
        return out
