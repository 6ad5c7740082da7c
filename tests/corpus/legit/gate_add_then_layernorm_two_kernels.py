"""LEGIT add_layernorm_fp32: two kernels in sequence (residual add into a torch.empty buffer, then a layernorm
row kernel reading it), parameters from an nn.LayerNorm submodule."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add_layernorm_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def add_kernel(a_ptr, b_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


@triton.jit
def ln_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    v = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(v, axis=0) / n_cols
    d = tl.where(mask, v - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = tl.rsqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, d * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.norm = nn.LayerNorm(cols)

    def forward(self, x, res):
        rows, cols = x.shape
        h = torch.empty(rows, cols, dtype=x.dtype, device=x.device)
        n = h.numel()
        add_kernel[(triton.cdiv(n, 2048),)](x, res, h, n, BLOCK=2048)
        y = torch.empty_like(h)
        ln_kernel[(rows,)](h, self.norm.weight, self.norm.bias, y, cols, 1e-5, BLOCK=triton.next_power_of_2(cols))
        return y
