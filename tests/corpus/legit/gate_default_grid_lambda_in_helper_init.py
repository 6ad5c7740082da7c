"""LEGIT (launcher style): a helper Launcher takes its grid as a default argument, `def __init__(self, block=1024, grid=lambda n, b: (triton.cdiv(n, b),))`; ModelNew builds it in __init__, forward calls self.launcher.grid(n, block)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class Launcher:
    def __init__(self, block=1024, grid=lambda n, b: (triton.cdiv(n, b),)):
        self.block = block
        self.grid = grid


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.launcher = Launcher()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        b = self.launcher.block
        relu_kernel[self.launcher.grid(n, b)](x, out, n, BLOCK=b)
        return out
