"""LEGIT: tanh via 'from triton.language.extra.cuda.libdevice import tanh'."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

from triton.language.extra.cuda.libdevice import tanh

TASK = "tanh_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tanh(tl.load(x_ptr + offs, mask=m)), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 512),)](x, y, n, BLOCK=512)
        return y
