"""LEGIT: tanh whose store casts to the output element type read through an attribute chain continued on the next line inside the call (`y_ptr.dtype` / `.element_ty)`); no multi-line assignment."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    y = tl.where(x >= 0, t, -t)
    tl.store(y_ptr + offs, mask=mask, value=y.to(y_ptr.dtype
                                                 .element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        xf = x.contiguous().view(-1)
        out = torch.empty_like(xf)
        n = xf.numel()
        tanh_kernel[(triton.cdiv(n, 512),)](xf, out, n, BLOCK=512)
        return out.view_as(x)
