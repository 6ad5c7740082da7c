"""LEGIT: the kernel is made inside a factory function and bound to a module global (its body is a kernel
body, the launch through the global counts; refused as host Python before 2026-12-03)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


def make_relu_kernel():
    @triton.jit
    def relu_made(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)

    return relu_made


RELU = make_relu_kernel()


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = y.numel()
        RELU[(triton.cdiv(n, 512),)](x, y, n, BLOCK=512)
        return y
