"""LEGIT (round 33): layernorm in two launches: the first writes each row's mean and rstd (scalar stores into a
stats buffer), the second, per (row, column block) program, reads them with scalar ``tl.load`` (written by the
*previous launch*: stream order makes them visible; the new launch's race record starts empty) and applies
weight and bias. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "layernorm_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def stats(x_ptr, st_ptr, C, eps, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        s += tl.load(x_ptr + r * C + c0 + offs, mask=c0 + offs < C, other=0.0)
    mean = tl.sum(s, axis=0) / C
    q = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        d = tl.load(x_ptr + r * C + c0 + offs, mask=c0 + offs < C, other=0.0) - mean
        q += tl.where(c0 + offs < C, d * d, 0.0)
    tl.store(st_ptr + 2 * r, mean)
    tl.store(st_ptr + 2 * r + 1, 1.0 / tl.sqrt(tl.sum(q, axis=0) / C + eps))


@triton.jit
def apply(x_ptr, st_ptr, w_ptr, b_ptr, out_ptr, C, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = cols < C
    mean = tl.load(st_ptr + 2 * r)
    rstd = tl.load(st_ptr + 2 * r + 1)
    x = tl.load(x_ptr + r * C + cols, mask=m, other=0.0)
    w = tl.load(w_ptr + cols, mask=m, other=0.0)
    b = tl.load(b_ptr + cols, mask=m, other=0.0)
    tl.store(out_ptr + r * C + cols, (x - mean) * rstd * w + b, mask=m)


class ModelNew(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.norm = nn.LayerNorm(cols, eps=1e-5)

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        st = torch.empty(2 * R, dtype=torch.float32, device=x.device)
        stats[(R,)](x, st, C, self.norm.eps, BLOCK=1024)
        out = torch.empty_like(x)
        apply[(R, triton.cdiv(C, 1024))](x, st, self.norm.weight, self.norm.bias, out, C, BLOCK=1024)
        return out
