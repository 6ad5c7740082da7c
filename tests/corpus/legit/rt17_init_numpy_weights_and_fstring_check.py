"""LEGIT: layernorm whose __init__ builds its affine parameters with numpy (x.numpy()/tolist in init are outside forward) and whose forward checks shapes with an f-string message."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "layernorm_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def ln_kernel(x_ptr, w_ptr, b_ptr, out_ptr, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    v = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
    mean = tl.sum(v, axis=0) / cols
    d = tl.where(mask, v - mean, 0.0)
    var = tl.sum(d * d, axis=0) / cols
    y = d / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + row * cols + offs, y * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, *args):
        super().__init__()
        cols = args[0] if args else 0
        self.cols = cols
        self.weight = nn.Parameter(torch.from_numpy(np.ones(cols, dtype=np.float32)))
        self.bias = nn.Parameter(torch.zeros(cols))
        self.eps = 1e-5

    def forward(self, x):
        if x.shape[-1] != self.cols:
            raise ValueError(f"expected {self.cols} columns, got shape {tuple(x.shape)}")
        x = x.contiguous()
        out = torch.empty_like(x)
        rows = x.numel() // self.cols
        ln_kernel[(rows,)](x, self.weight, self.bias, out, self.cols, self.eps,
                           BLOCK=triton.next_power_of_2(self.cols))
        return out
