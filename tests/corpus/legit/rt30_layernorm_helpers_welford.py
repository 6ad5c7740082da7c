"""LEGIT (round 30): layer norm with ``@triton.jit`` helper functions (a Welford combine used by
``tl.reduce`` over column tiles, a normalise-and-store helper), int64 row offsets, two passes over tiles."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "layernorm_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def _tile_stats(x):
    s = tl.sum(x, axis=0)
    ss = tl.sum(x * x, axis=0)
    return s, ss


@triton.jit
def _normalize(x, mean, rstd, w, b):
    return (x - mean) * rstd * w + b


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    s = tl.zeros((), dtype=tl.float32)
    ss = tl.zeros((), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=0.0)
        a, q = _tile_stats(x)
        s += a
        ss += q
    mean = s / N
    var = tl.maximum(ss / N - mean * mean, 0.0)
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < N
        x = tl.load(x_ptr + base + cols, mask=m, other=0.0)
        w = tl.load(w_ptr + cols, mask=m, other=1.0)
        b = tl.load(b_ptr + cols, mask=m, other=0.0)
        tl.store(y_ptr + base + cols, _normalize(x, mean, rstd, w, b), mask=m)


class ModelNew(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(cols))
        self.bias = nn.Parameter(torch.zeros(cols))
        self.eps = 1e-5

    def forward(self, x):
        x = x.contiguous()
        N = x.shape[-1]
        x2 = x.view(-1, N)
        y = torch.empty_like(x2)
        layernorm_kernel[(x2.shape[0],)](x2, self.weight, self.bias, y, N, self.eps, BLOCK=1024, num_warps=8)
        return y.view_as(x)
