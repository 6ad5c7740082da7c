"""LEGIT: 'sigmoid_kernel = triton.jit(_sigmoid, do_not_specialize=["n"])' call with keyword options."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sigmoid_fp32"
EXPECT = "ok"
DEVICE = "cpu"


def _sigmoid(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.sigmoid(x), mask=m)


sigmoid_kernel = triton.jit(_sigmoid, do_not_specialize=["n"])


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        sigmoid_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
        return y
