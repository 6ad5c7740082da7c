"""LEGIT (bf16 under the CPU interpreter): ReLU as x * (x > 0).to(x.dtype) on bf16 (the CPU interpreter cast the comparison's booleans to bf16 as bit patterns until 2026-12-03)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_bf16"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = x * (x > 0).to(x.dtype)
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
