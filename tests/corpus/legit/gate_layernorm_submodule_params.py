"""LEGIT (parameters): an nn.LayerNorm submodule built like the reference's holds weight/bias/eps; the kernel reads self.norm.weight, self.norm.bias and self.norm.eps; forward reshapes with *x.shape[:-1]."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "layernorm_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, stride, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / cols
    inv = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + row * stride + offs, d * inv * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.norm = nn.LayerNorm(cols, eps=1e-5)

    def forward(self, x):
        *lead, cols = x.shape
        x2 = x.reshape(-1, cols).contiguous()
        out = torch.empty_like(x2)
        layernorm_kernel[(x2.shape[0],)](x2, self.norm.weight, self.norm.bias, out, x2.stride(0), cols,
                                         self.norm.eps, BLOCK=triton.next_power_of_2(cols))
        return out.reshape(*lead, cols)
