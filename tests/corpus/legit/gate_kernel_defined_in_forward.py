"""LEGIT (launch style): the @triton.jit kernel is defined inside forward (a closure-free nested kernel) and launched there."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        @triton.jit
        def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            v = tl.load(x_ptr + offs, mask=mask)
            tl.store(out_ptr + offs, tl.where(v > 0, v, 0.0), mask=mask)

        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
